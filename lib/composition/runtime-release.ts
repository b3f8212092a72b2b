import { argocdNamespaces, type FleetConfig } from '../fleet/fleet-config.js';
import { APP_PROJECTS, type KubeResource } from '../kubernetes/resources.js';
import type { Clock, Logger, Queue } from '../ports.js';
import type { FanoutMessage } from '../queue/messages.js';
import { createUngatedInstances } from '../reconcile/argocd-gate.js';
import { createReleaseEngine, type ReleaseEngine } from '../release/engine.js';
import type { HoldContext } from '../release/holds.js';
import type { ControlStore, FreezeStore } from '../release/ports.js';
import { syncWindowsOf } from '../release/sync-window-holds.js';
import type { OpenRollouts } from '../rollouts/ports/open-rollouts.js';
import type { Freeze, UngatedInstance } from '../rollouts/rollout-model.js';
import { planWaves, waveOf } from '../rollouts/waves.js';
import { dynamoControlStore } from '../store/control.js';
import type { TableRef } from '../store/dynamo.js';
import { dynamoFindingsReader } from '../store/findings.js';
import { dynamoFreezeStore } from '../store/freezes.js';
import { dynamoReleaseRecords } from '../store/release-records.js';

export interface ReleaseParts {
  readonly engine: ReleaseEngine;
  readonly control: ControlStore;
  readonly freezes: FreezeStore;
  /** The wave of a destination cluster (undefined without `waves:`). */
  waveOf(destination: string): string | undefined;
  /** Argo CD instances that poll Git (cached a minute), and their note on a rollout. */
  readonly ungated: {
    instances(): Promise<readonly UngatedInstance[]>;
    note(sha: string, instances: readonly UngatedInstance[]): Promise<void>;
  };
  /** Release control's state of one rollout, the freezes in force and the cluster's sync windows. */
  holdContext(sha: string, cluster: string): Promise<HoldContext>;
}

/** How long a container trusts the list of Argo CD instances that poll (reconcile refreshes it per pass). */
const UNGATED_TTL_MS = 60_000;

/** How long a container trusts a cluster's AppProjects (their sync windows). */
const PROJECTS_TTL_MS = 30_000;

/** Release control for one fleet: its waves, the control and freeze stores, the engine. */
/** What release control takes of the fleet functions' shared runtime (not the runtime module: no cycle). */
export interface ReleaseRuntime {
  readonly table: TableRef;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly pushQueue: Queue<FanoutMessage>;
  /** `freezeCacheSeconds`: how long a container trusts the freezes it read (a new freeze holds within it). */
  readonly config: { readonly trackDeadlineSeconds: number; readonly freezeCacheSeconds: number };
}

export function releaseParts(
  shared: ReleaseRuntime,
  fleetConfig: FleetConfig,
  open: Pick<OpenRollouts, 'open'>,
  listIn: (cluster: string, resources: readonly KubeResource[], namespace?: string) => Promise<unknown[]>,
): ReleaseParts {
  const { table, clock, logger, pushQueue, config } = shared;
  const control = dynamoControlStore(table);
  const records = dynamoReleaseRecords(table);
  const polling = createUngatedInstances({ fleet: fleetConfig, findings: dynamoFindingsReader(table) });
  let ungatedAt: { at: number; list: Promise<readonly UngatedInstance[]> } | undefined;
  const freezes = dynamoFreezeStore(table);
  // Cheap (a few clusters per wave), and always the fleet's current waves.
  const plan = () => planWaves(fleetConfig.waves, fleetConfig.clusters);
  const engine = createReleaseEngine({
    control,
    records,
    open,
    queue: pushQueue,
    waves: () => plan()?.waves ?? [],
    clock,
    logger,
    trackDeadlineSeconds: config.trackDeadlineSeconds,
  });
  let cached: { at: number; list: Promise<readonly Freeze[]> } | undefined;
  const freezesNow = () => {
    const now = clock.now();
    if (cached === undefined || now.getTime() - cached.at > config.freezeCacheSeconds * 1000) {
      const list = freezes.list(now);
      cached = { at: now.getTime(), list };
      // A failed read is not kept: the next work item asks again.
      list.catch(() => {
        cached = undefined;
      });
    }
    return cached.list;
  };
  // The work items of one SQS batch start side by side: those of one rollout share a read in flight of its
  // release state (a read started at the same moment; never an answer kept once it has come back).
  const controlReads = new Map<string, ReturnType<ControlStore['read']>>();
  const controlNow = (sha: string) => {
    const inFlight = controlReads.get(sha);
    if (inFlight !== undefined) return inFlight;
    const read = control.read(sha);
    controlReads.set(sha, read);
    const done = () => {
      if (controlReads.get(sha) === read) controlReads.delete(sha);
    };
    read.then(done, done);
    return read;
  };
  const projects = new Map<string, { at: number; windows: Promise<(raw: unknown) => string | undefined> }>();
  const windowsOf = (cluster: string) => {
    const now = clock.now().getTime();
    const known = projects.get(cluster);
    if (known !== undefined && now - known.at <= PROJECTS_TTL_MS) return known.windows;
    const config = fleetConfig.clusters.find((c) => c.name === cluster);
    // An unreadable list (no RBAC for appprojects yet) is an empty one: no window holds, as before.
    const windows = Promise.all(
      (config === undefined ? [] : argocdNamespaces(config)).map((ns) => listIn(cluster, [APP_PROJECTS], ns)),
    ).then((lists) => syncWindowsOf(lists.flat(), () => clock.now()));
    projects.set(cluster, { at: now, windows });
    return windows;
  };
  return {
    engine,
    control,
    freezes,
    waveOf: (destination) => waveOf(plan(), destination)?.name,
    ungated: {
      instances() {
        const now = clock.now().getTime();
        if (ungatedAt === undefined || now - ungatedAt.at > UNGATED_TTL_MS) {
          const list = polling();
          ungatedAt = { at: now, list };
          list.catch(() => {
            ungatedAt = undefined;
          });
        }
        return ungatedAt.list;
      },
      note: (sha, instances) => records.addUngated(sha, instances),
    },
    async holdContext(sha, cluster) {
      const [state, list, syncWindow] = await Promise.all([
        controlNow(sha),
        freezesNow(),
        windowsOf(cluster),
      ]);
      return { control: state, freezes: list, syncWindow: (app) => syncWindow(app.raw) };
    },
  };
}
