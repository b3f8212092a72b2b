import type { FleetApp } from '../app.js';
import { createSecretReader } from '../aws/secret-reader.js';
import { createSecretsManagerApi } from '../aws/secrets-manager.js';
import type { Config } from '../config.js';
import type { FleetConfig } from '../fleet/fleet-config.js';
import { fixedFleetSource } from '../fleet/fleet-source.js';
import type { FanoutMessage, TrackMessage } from '../queue/messages.js';
import { resolveQueueBody } from '../queue/offload-queue.js';
import { dynamoFindingsStore } from '../store/findings.js';
import { dynamoPayloadStore } from '../store/payloads.js';
import { dynamoRolloutReader } from '../store/rollout-items.js';
import { dynamoRolloutWriter } from '../store/rollouts.js';
import {
  fleetSourceOf,
  httpOf,
  ownSecrets,
  PAYLOAD_TTL_SECONDS,
  queueOf,
  RECORD_TTL_SECONDS,
  runtimeBase,
  tableOf,
} from './runtime-adapters.js';
import type { FleetBuilder, FleetFunctions } from './runtime-fleet.js';
import type { RuntimeOverrides, SharedRuntime } from './runtime-model.js';

export type { RuntimeOverrides } from './runtime-model.js';

/**
 * fanout, track and reconcile, built on their first call by `build` (each Lambda's own part, loaded then:
 * `runtime-fleet-apps.ts`) and again when the fleet source hands out a changed fleet: a cold start that
 * fails on the fleet fails the invocation loudly, and importing the bundle stays cheap. No `import()` of
 * the fleet code sits in this module: esbuild would wrap everything it reaches for lazy loading, in the
 * webhook and API bundles too, and wrapped modules are not tree-shaken.
 */
export function createFleetApp(config: Config, overrides: RuntimeOverrides, build: FleetBuilder): FleetApp {
  const base = runtimeBase(config, overrides);
  const { clock } = base;
  const table = tableOf(config);
  const payloads = dynamoPayloadStore(table, PAYLOAD_TTL_SECONDS);
  const secretsManager = createSecretsManagerApi({
    ...(config.secretsManagerEndpoint === undefined ? {} : { endpoint: config.secretsManagerEndpoint }),
    ...(config.stsEndpoint === undefined ? {} : { stsEndpoint: config.stsEndpoint }),
    clock,
    http: httpOf(config),
  });
  const fleetSource = fleetSourceOf(base);
  const shared: SharedRuntime = {
    ...base,
    table,
    secretsManager,
    secretReader:
      overrides.secretReader ?? createSecretReader({ api: secretsManager, region: config.region, clock }),
    cachedSecrets: ownSecrets(base),
    pushQueue: queueOf<FanoutMessage>(base, overrides.pushQueue, config.queueUrl, payloads, 'QUEUE_URL'),
    // biome-ignore format: one line, so the IAM test reads which queue URL each queueOf call names
    trackQueue: queueOf<TrackMessage>(base, overrides.trackQueue, config.trackQueueUrl, payloads, 'TRACK_QUEUE_URL'),
    rollouts: dynamoRolloutWriter(table, RECORD_TTL_SECONDS),
    reader: dynamoRolloutReader(table),
    findings: dynamoFindingsStore(table),
    fleetSource,
  };
  // Rebuilt when the source hands out a new fleet (a changed FLEET_SOURCE), pinned to that fleet.
  let built: { fleet: FleetConfig; functions: Promise<Partial<FleetFunctions>> } | undefined;
  const fleet = async (): Promise<Partial<FleetFunctions>> => {
    const current = await fleetSource.current();
    if (built?.fleet !== current) {
      const pinned = { ...shared, fleetSource: fixedFleetSource(current, fleetSource.name) };
      built = { fleet: current, functions: build(pinned) };
    }
    return built.functions;
  };
  const part = async <K extends keyof FleetFunctions>(name: K): Promise<FleetFunctions[K]> => {
    const fn = (await fleet())[name];
    if (fn === undefined) throw new Error(`${name} is not built into this function`);
    return fn;
  };
  return {
    logger: base.logger,
    metrics: base.metrics,
    fleetReady: async () => {
      await fleet();
    },
    fanout: async (message, budget) => (await part('fanout'))(message, budget),
    track: async (message) => (await part('track'))(message),
    reconcile: async (options) => (await part('reconcile'))(options),
    resolveQueueBody: (body) => resolveQueueBody(body, payloads),
  };
}
