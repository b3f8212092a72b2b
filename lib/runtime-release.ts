import type { FleetConfig } from './fleet/fleet-config.js';
import { createReleaseEngine, type ReleaseEngine } from './release/engine.js';
import type { HoldContext } from './release/holds.js';
import type { ControlStore, FreezeStore } from './release/ports.js';
import type { Freeze } from './rollouts/model.js';
import type { OpenRollouts } from './rollouts/rollout-store.js';
import { planWaves, waveOf } from './rollouts/waves.js';
import type { SharedRuntime } from './runtime.js';
import { dynamoControlStore } from './store/control.js';
import { dynamoFreezeStore } from './store/freezes.js';
import { dynamoReleaseRecords } from './store/release-records.js';

/** How long a container trusts the freezes it read: a new freeze holds pushes within this. */
const FREEZES_TTL_MS = 10_000;

export interface ReleaseParts {
  readonly engine: ReleaseEngine;
  readonly control: ControlStore;
  readonly freezes: FreezeStore;
  /** The wave of a destination cluster (undefined without `waves:`). */
  waveOf(destination: string): string | undefined;
  /** Release control's state of one rollout and the freezes in force, for one work item. */
  holdContext(sha: string): Promise<HoldContext>;
}

/** Release control for one fleet: its waves, the control and freeze stores, the engine. */
export function releaseParts(
  shared: SharedRuntime,
  fleetConfig: FleetConfig,
  open: Pick<OpenRollouts, 'open'>,
): ReleaseParts {
  const { table, clock, logger, pushQueue, config } = shared;
  const control = dynamoControlStore(table);
  const freezes = dynamoFreezeStore(table);
  const plan = planWaves(fleetConfig.waves, fleetConfig.clusters);
  const engine = createReleaseEngine({
    control,
    records: dynamoReleaseRecords(table),
    open,
    queue: pushQueue,
    waves: () => plan?.waves ?? [],
    clock,
    logger,
    trackDeadlineSeconds: config.trackDeadlineSeconds,
  });
  let cached: { at: number; list: Promise<readonly Freeze[]> } | undefined;
  const freezesNow = () => {
    const now = clock.now();
    if (cached === undefined || now.getTime() - cached.at > FREEZES_TTL_MS) {
      const list = freezes.list(now);
      cached = { at: now.getTime(), list };
      // A failed read is not kept: the next work item asks again.
      list.catch(() => {
        cached = undefined;
      });
    }
    return cached.list;
  };
  return {
    engine,
    control,
    freezes,
    waveOf: (destination) => waveOf(plan, destination)?.name,
    async holdContext(sha) {
      const [state, list] = await Promise.all([control.read(sha), freezesNow()]);
      return { control: state, freezes: list };
    },
  };
}
