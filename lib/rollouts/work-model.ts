import type { PinOwner } from '../argocd/pin-owner.js';
import type { FleetCluster, FleetGateway } from '../fleet/gateway.js';
import type { FleetObject, MatchIndex, ObjectMatch } from '../matching/match-index.js';
import type { Clock, Logger, Queue } from '../ports.js';
import type { ClusterWorkMessage, FanoutMessage, TrackMessage } from '../queue/messages.js';
import type { HoldContext } from '../release/holds.js';
import type { SecretCheck } from '../secrets/secret-check.js';
import type { PushEvent } from '../webhook/push-event.js';
import type { AppTarget, Decision, StoredApp } from './app-model.js';
import type { AppStateWriter, SyncedSummary } from './ports/app-state.js';
import type { ClusterLeases } from './ports/cluster-leases.js';
import type { ClusterProgressWriter } from './ports/cluster-progress.js';
import type { ClusterTrackers } from './ports/cluster-trackers.js';
import type { RolloutReader } from './ports/rollout-reader.js';
import type { AppLedger, NewAppRecords, RolloutMeta, RolloutWriter } from './ports/rollout-writer.js';
import type { UngatedInstance } from './rollout-model.js';

// The types one cluster's work item and its per-app refresh share (cluster-work.ts, refresh-apps.ts,
// app-refresh.ts and the steps beside them), kept here so none of them imports another for a type.

export interface PreflightVerdict {
  readonly verdict: 'pass' | 'warn' | 'block';
  readonly checks: readonly SecretCheck[];
  readonly summary?: string;
  /** Where the checked manifests came from: Argo CD's rendering, or the files in Git. */
  readonly renderedBy?: 'argocd' | 'git';
  /** Why Argo CD's rendering was not used (or why nothing could be rendered). */
  readonly renderNote?: string;
}

/** Checks an Application's ExternalSecrets at the pushed commit before it is refreshed. */
export type Preflight = (
  match: ObjectMatch,
  event: PushEvent,
  limits?: PreflightLimits,
) => Promise<PreflightVerdict>;

/** What bounds one preflight: the work's deadline (epoch ms, real time), which ends an Argo CD render too. */
export interface PreflightLimits {
  readonly deadlineMs?: number;
}

/** What one work item did about one matched object. */
export interface AppOutcome {
  readonly target: AppTarget;
  readonly decision: Decision;
  readonly detail: string;
  /** `failed`: the PATCH failed and will be tried again; `deferred`: the time budget ended first. */
  readonly retry?: 'failed' | 'deferred';
  /** The app has to be followed to its end. */
  readonly track: boolean;
  /** This work item patched it. */
  readonly patched: boolean;
}

export interface RefreshContext {
  readonly cluster: FleetCluster;
  readonly meta: RolloutMeta;
  readonly message: ClusterWorkMessage;
  readonly deps: ClusterWorkDeps;
  /** When this invocation stops starting work (epoch ms, real time). */
  readonly deadlineMs: number;
  /** The rollout's deadline (epoch ms): nothing is patched past it. */
  readonly rolloutDeadlineMs?: number;
  readonly log: Logger;
  /** Held lease: apps with no record yet are recorded here and written in batches at the end. */
  readonly fresh?: NewAppRecords;
  /** Release control's state for this rollout (waves, pause, abort, freezes), read once per work item. */
  readonly holds?: HoldContext;
  /** Canonical key of the pushed repository (what freezes name). */
  readonly repoKey?: string;
  /** The owners (ApplicationSet, app-of-apps parent) of an Application, from the cluster's listing. */
  readonly owners?: (app: unknown) => readonly PinOwner[];
  /** This cluster's records of the rollout, when the work item has just read them (a release does). */
  readonly records?: readonly StoredApp[];
}

export type AppContext = RefreshContext & {
  readonly ledger: AppLedger;
  /** Whether the rollout of the ref's later head has a record of this app that is not superseded. */
  readonly ownedLater: (target: AppTarget) => Promise<boolean>;
};

export interface ClusterWorkDeps {
  readonly fleet: FleetGateway;
  readonly rollouts: RolloutWriter & AppStateWriter & ClusterProgressWriter & Pick<RolloutReader, 'listApps'>;
  readonly trackers: Pick<ClusterTrackers, 'claimChain'>;
  readonly preflight: Preflight;
  /**
   * Called as a work item starts, before its cluster is listed: where this container's last listing of the
   * cluster says the push refreshes an app whose preflight reads Git, the commit's fetch starts now instead
   * of after the listing and matching (never throws; nothing is awaited).
   */
  readonly warmCommit?: (cluster: string, event: PushEvent) => void;
  /** The cluster's match index over these objects (kept across warm invocations where it can be). */
  readonly matchIndex: (cluster: string, objects: readonly FleetObject[]) => MatchIndex;
  /** The fleet cluster an Application deploys to, when the fleet has it. */
  readonly destination?: (cluster: string, raw: unknown) => string | undefined;
  /** With `waves:` in the fleet: the wave of a destination cluster (the last wave for one no wave names). */
  readonly waveOf?: (destination: string) => string | undefined;
  /** Release control's state of a rollout (waves, pause, abort) and the freezes in force, once per work item. */
  readonly holdContext?: (sha: string, cluster: string) => Promise<HoldContext>;
  /**
   * Argo CD instances that poll Git themselves (the last reconcile pass's `argocd-polling-on` findings) and
   * where to note them on a rollout that holds apps there without a pin: such a hold is advisory.
   */
  readonly ungated?: {
    instances(): Promise<readonly UngatedInstance[]>;
    note(sha: string, instances: readonly UngatedInstance[]): Promise<void>;
  };
  /** Repositories under `control: pin` (their sources' `targetRevision` is the orchestrator's to move). */
  readonly pinnedRepos?: readonly string[];
  /** A released app's deadline starts when it is released (a sync window or a freeze held it till now). */
  readonly restartDeadline?: (sha: string) => Promise<void>;
  /** Release control looks at the rollout's waves after its apps changed (never throws). */
  readonly gate?: (sha: string, summary: SyncedSummary | undefined) => Promise<unknown>;
  readonly notify: (sha: string) => Promise<void>;
  readonly queue: Queue<FanoutMessage>;
  readonly trackQueue: Queue<TrackMessage>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly trackIntervalSeconds: number;
  /** How long a track chain may go without polling before another may start (longer than any poll gap). */
  readonly chainLeaseSeconds: number;
  /** A second delivery of the same commit within this window does not patch an app again. */
  readonly refreshWindowSeconds?: number;
  /** Tries of one cluster's work (the first included) before what is left is recorded as failed. */
  readonly maxAttempts?: number;
  /** The first retry's delay; it doubles per attempt, at most 900 s (SQS's limit). */
  readonly retryBaseSeconds?: number;
  /**
   * One work item per commit and cluster at a time; its holder writes the records of apps that had none
   * in batches (`newApps`). Without them every app is claimed and recorded with its own conditional writes.
   */
  readonly leases?: ClusterLeases;
  /** `lease.untilMs`: when the holder's lease ends (till shortly before, its batch writes need no condition). */
  readonly newApps?: (meta: RolloutMeta, lease?: { untilMs: number }) => NewAppRecords;
}
