import type { ControlApiDeps } from '../api/control-routes.js';
import type { FleetSource } from '../fleet/fleet-source.js';
import type { Queue } from '../ports.js';
import type { FanoutMessage } from '../queue/messages.js';
import { type ControlEngine, createReleaseControl } from '../release/control.js';
import { createReleaseEngine, type ReleaseEngine } from '../release/engine.js';
import type { RolloutReader } from '../rollouts/ports/rollout-reader.js';
import { dynamoControlStore } from '../store/control.js';
import type { TableRef } from '../store/dynamo.js';
import { dynamoFreezeStore } from '../store/freezes.js';
import { dynamoOpenRollouts } from '../store/open-rollouts.js';
import { dynamoReleaseRecords } from '../store/release-records.js';
import { RECORD_TTL_SECONDS } from './runtime-adapters.js';
import type { RuntimeBase } from './runtime-model.js';

/**
 * Release control's operator actions as the API and a check run's button make them: the API opens no wave
 * itself, so a resume or an abort asks the fanout function (a gate message), and a retry sends the retry
 * work items. The queue is made on the first action (reads need no QUEUE_URL).
 */
export function releaseControl(
  base: RuntimeBase,
  table: TableRef,
  reader: RolloutReader,
  fanoutQueue: () => Queue<FanoutMessage>,
) {
  const { overrides, clock, logger, config } = base;
  let engine: ReleaseEngine | undefined;
  const engineOnce = () => {
    engine ??= createReleaseEngine({
      control: dynamoControlStore(table),
      records: dynamoReleaseRecords(table),
      open: dynamoOpenRollouts(table, RECORD_TTL_SECONDS),
      queue: fanoutQueue(),
      waves: () => [],
      clock,
      logger,
      trackDeadlineSeconds: config.trackDeadlineSeconds,
    });
    return engine;
  };
  const engineCalls: ControlEngine = {
    release: (sha) => engineOnce().requestGate(sha, { release: true }),
    gate: (sha, options) => engineOnce().requestGate(sha, options),
    retry: (sha, apps) => engineOnce().retry(sha, apps),
  };
  const control = createReleaseControl({
    store: dynamoControlStore(table),
    apps: (sha) => reader.listApps(sha),
    clock,
    ...engineCalls,
    ...overrides.controlEngine,
  });
  return { control, engineOnce };
}

export function apiControl(
  base: RuntimeBase,
  table: TableRef,
  reader: RolloutReader,
  fleet: () => FleetSource,
  fanoutQueue: () => Queue<FanoutMessage>,
): ControlApiDeps {
  const { overrides, clock } = base;
  const { control, engineOnce } = releaseControl(base, table, reader, fanoutQueue);
  return {
    control,
    freezes: dynamoFreezeStore(table),
    freezeFleet: async () => {
      const current = await fleet().current();
      return {
        clusters: current.clusters.map((c) => c.name),
        repositories: current.repositories.map((r) => r.url),
      };
    },
    unpin:
      overrides.unpin ??
      (async (repo) => {
        await engineOnce().requestUnpin(repo);
        return { queued: true };
      }),
    clock,
  };
}
