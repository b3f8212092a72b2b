import type { FindingsReader } from '../api/findings-reader.js';
import type { Config } from '../config.js';
import type { FleetConfig } from '../fleet/fleet-config.js';
import type { FleetSource } from '../fleet/fleet-source.js';
import type { FleetMode } from '../fleet/yaml-reader.js';
import type { Clock, Logger, Metrics, Queue, SecretReader } from '../ports.js';
import type { FanoutMessage, PointerMessage, TrackMessage } from '../queue/messages.js';
import type { ControlEngine } from '../release/control.js';
import type { RolloutReader } from '../rollouts/ports/rollout-reader.js';
import type { SecretsManagerApi } from '../secrets/secrets-manager-api.js';
import type { TableRef } from '../store/dynamo.js';
import type { dynamoFindingsStore } from '../store/findings.js';
import type { DynamoRolloutWriter } from '../store/rollouts.js';

// The composition's shared shapes: what runtime.ts builds and the per-function builders start from
// (apart from runtime.ts, so runtime-fleet.ts needs nothing of it and the two do not import each other).

/** What the local stack and tests swap in; everything else is built from the config. */
export interface RuntimeOverrides {
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  readonly clock?: Clock;
  /** Raw queues (the in-process ones); the runtime wraps them as it wraps SQS (offloading, delays). */
  readonly pushQueue?: Queue<FanoutMessage | PointerMessage>;
  readonly trackQueue?: Queue<TrackMessage | PointerMessage>;
  /** The fleet itself (the local simulator), instead of reading FLEET_CONFIG. */
  readonly fleet?: FleetConfig;
  /** Which fleet-file rules apply (default `deployed`; the local stack passes `local`). */
  readonly fleetMode?: FleetMode;
  readonly secretReader?: SecretReader;
  readonly findings?: FindingsReader;
  /** Where fetched Git commits are kept (default: the OS temp dir, `/tmp` in Lambda). */
  readonly gitCacheDir?: string;
  /** Where people reach the pages, when only known after start (the local stack's port); PUBLIC_URL wins. */
  readonly publicUrl?: () => string | undefined;
  /**
   * The control routes' engine callbacks (re-evaluate held apps, look at the waves, send retry work items).
   * Without one the routes write the control state only, and `retry` answers 409 (not enabled).
   */
  readonly controlEngine?: Partial<ControlEngine>;
  /** `POST /unpin`: restores followed revisions (`control: pin`); without it the route answers 409. */
  readonly unpin?: (repo?: string) => Promise<{ readonly queued: boolean }>;
}

/** What every function's composition starts from: the config, the overrides and the cross-cutting ports. */
export interface RuntimeBase {
  readonly config: Config;
  readonly overrides: RuntimeOverrides;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly clock: Clock;
  /** The SDK's tries per AWS call (its default 3; the webhook's are fewer). */
  readonly awsMaxAttempts?: number;
}

/** What the fleet functions (fanout, track, reconcile) share, built once per cold start. */
export interface SharedRuntime extends RuntimeBase {
  readonly table: TableRef;
  readonly secretsManager: SecretsManagerApi;
  readonly secretReader: SecretReader;
  /** The same secrets through Powertools Parameters (TTL cache): the Slack credential. */
  readonly cachedSecrets: SecretReader;
  readonly pushQueue: Queue<FanoutMessage>;
  readonly trackQueue: Queue<TrackMessage>;
  readonly rollouts: DynamoRolloutWriter;
  readonly reader: RolloutReader;
  readonly findings: ReturnType<typeof dynamoFindingsStore>;
  /** The validated fleet (FLEET_SOURCE, FLEET_CONFIG or the override), cached and re-read on its TTL. */
  readonly fleetSource: FleetSource;
}
