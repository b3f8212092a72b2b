import type { FeedbackEntry } from '../feedback/model.js';
import type { SecretCheck } from '../secrets/secret-check.js';
import type { PushEvent } from '../webhook/push-event.js';
import type {
  AppRecord,
  AppTarget,
  ClusterProgress,
  DecisionRecord,
  Rollout,
  RolloutSummary,
  StateCounts,
  StoredApp,
  UngatedInstance,
} from './model.js';

export type NewRollout = Omit<RolloutSummary, 'status' | 'counts' | 'decisions' | 'refs' | 'finishedAt'> & {
  /** The push without its file list: what a release work item matches the held apps against later. */
  readonly pushEvent?: StoredPushEvent;
};

export type StoredPushEvent = Omit<PushEvent, 'changedFiles'>;

/** What every app record of a rollout repeats, so history entries stand on their own. */
export type RolloutMeta = Pick<RolloutSummary, 'sha' | 'repo' | 'ref' | 'trigger' | 'receivedAt'>;

/** Fields to change on an app record; `null` removes a field (a message that no longer applies). */
export type AppChange = {
  readonly [K in Exclude<keyof StoredApp, keyof AppTarget | 'version'>]?: K extends 'state'
    ? StoredApp[K]
    : StoredApp[K] | null;
};

export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor?: string;
}

/** Written by fan-out: the rollout, its decisions, and one claim + record per refreshed app. */
export interface RolloutWriter {
  /** Creates the rollout for this commit, or adds `ref` to the one that exists (and moves its deadline on). */
  start(rollout: NewRollout): Promise<'created' | 'exists'>;
  /**
   * Records one work item's decisions under `batch` (its cluster, delivery and attempt: a redelivery
   * overwrites, never appends) and re-derives the rollout's decision counts, one per object.
   */
  recordDecisions(
    sha: string,
    batch: string,
    decisions: readonly DecisionRecord[],
    options?: {
      /** The work item's new app records still to write: flushed now, the decisions in their last batch. */
      readonly pending?: NewAppRecords | undefined;
      /** The counts are returned, not written: `recordCluster` writes them with the cluster's progress. */
      readonly withProgress?: boolean;
    },
  ): Promise<DecisionTally | undefined>;
  /** Writes an app's record unless it holds a later state already (a redelivery never moves it back). */
  recordApp(meta: RolloutMeta, record: AppRecord): Promise<void>;
  /**
   * Takes the right to refresh one app for this push: a conditional write at the version read before
   * (none: the item must not exist). Returns the new version, or undefined when another delivery won.
   */
  claimApp(
    meta: RolloutMeta,
    claim: AppClaim,
    expectedVersion: number | undefined,
  ): Promise<number | undefined>;
}

/** What a claim writes: the app's record as fan-out starts on it. */
export interface AppClaim extends AppRecord {
  readonly claimedAt: string;
  /** The revision the app was at when it was claimed (a third revision later means a newer push). */
  readonly fromRevision?: string;
}

/** Forward-only, conditional state changes: two pollers racing never lose an update or move a state back. */
export interface AppStateWriter {
  transition(
    sha: string,
    target: AppTarget,
    change: AppChange,
    expectedVersion: number,
  ): Promise<'updated' | 'conflict'>;
  /**
   * Recomputes the rollout's counts and status (monotonic: a stale view never overwrites) from the apps of
   * `cluster` (what one work item or one poll changed: its cost is that cluster's apps, not the whole
   * rollout's) and the other clusters' stored views; without `cluster`, from every app. `apps`: that
   * cluster's apps as the caller has just read them (after its writes), so they are not read again.
   */
  syncSummary(sha: string, cluster?: string, apps?: readonly ViewedApp[]): Promise<SyncedSummary | undefined>;
}

/** Each wave's apps over every cluster: counts per state, the latest end, the clusters holding them. */
export type WaveViews = Readonly<
  Record<string, { readonly c: StateCounts; readonly f?: string; readonly clusters: readonly string[] }>
>;

export type SyncedSummary = RolloutSummary & {
  readonly appsVersion: number;
  /** With waves: what each wave's gate is judged on. */
  readonly waveViews?: WaveViews;
  readonly paused?: boolean;
  readonly aborted?: boolean;
  readonly halted?: boolean;
};

/** What a cluster's view of a rollout is derived from, per app. */
export interface ViewedApp {
  readonly state: StoredApp['state'];
  /** With waves: the app's wave, so each wave's counts are kept apart. */
  readonly wave?: string | undefined;
  readonly version: number;
  readonly finishedAt?: string | undefined;
  /** Stands in for `finishedAt` on a finished app without one (items written before every end set it). */
  readonly updatedAt?: string | undefined;
}

/** The record writes of one app's refresh (the store's, or a buffer's for apps no record exists of yet). */
export type AppLedger = Pick<RolloutWriter, 'recordApp' | 'claimApp'> & Pick<AppStateWriter, 'transition'>;

/**
 * The records of apps that had none, kept in memory and written as their apps finish (in groups) and at
 * the end of a work item. Only the work item holding the cluster's lease creates app items of that commit
 * and cluster (track and the sweep change existing ones only); each write is still conditional on the item
 * not existing, so a holder whose lease ran out never overwrites what a later holder recorded.
 */
export interface NewAppRecords extends AppLedger {
  readonly size: number;
  /**
   * Writes the records of `targets` (default: all) and forgets them; returns how many were written.
   * `alongside`: other items of the table put (unconditionally) with the last batch.
   */
  flush(
    targets?: readonly AppTarget[],
    alongside?: readonly Readonly<Record<string, unknown>>[],
  ): Promise<number>;
  /**
   * What the written records make of the cluster's view, app by app, as written; undefined when a
   * conditional put found an item there (another holder's record: only a read knows it then).
   */
  viewed(): readonly ViewedApp[] | undefined;
}

export interface TransitionWrite {
  readonly target: AppTarget;
  readonly change: AppChange;
  readonly expectedVersion: number;
}

/** `transition` for many apps of one cluster at once; only for the holder of that cluster's lease. */
export interface AppTransitions {
  transitionMany(
    sha: string,
    cluster: string,
    writes: readonly TransitionWrite[],
  ): Promise<{
    readonly updated: number;
    readonly conflicts: readonly AppTarget[];
    /** The cluster's apps as they are after these writes (read under the lease: no one else wrote them). */
    readonly apps: readonly (StoredApp & Pick<ViewedApp, 'updatedAt'>)[];
  }>;
}

/** One work item at a time per commit and cluster (the lease runs out when its holder's invocation ends). */
export interface ClusterLeases {
  acquire(
    sha: string,
    cluster: string,
    holder: string,
    untilMs: number,
  ): Promise<
    { readonly held: true } | { readonly held: false; readonly untilMs: number; readonly holder?: string }
  >;
  release(sha: string, cluster: string, holder: string): Promise<void>;
}

/** Where each cluster's work item of a rollout stands, with the reason when it is retrying or failed. */
export interface ClusterProgressWriter {
  planClusters(sha: string, clusters: readonly string[]): Promise<void>;
  /** `decided`: the cluster's decision counts from `recordDecisions`, written in the same update. */
  recordCluster(
    sha: string,
    cluster: string,
    progress: ClusterProgress,
    message?: string,
    decided?: DecisionTally,
  ): Promise<void>;
}

/** One cluster's decision counts, one per object (its latest decision), as `recordDecisions` derived them. */
export interface DecisionTally {
  readonly cluster: string;
  readonly counts: Readonly<Record<string, number>>;
}

/** A rollout registered for tracking on one cluster; `adds` grows with every registration. */
export interface TrackedRollout {
  readonly sha: string;
  readonly adds: number;
  readonly addedAt: string;
}

/**
 * One polling chain per cluster. Fan-out registers the rollout, then claims the chain (undefined: a chain
 * is alive and will see it; else the new chain's id, carried by its messages). Track drops a registration
 * only at the `adds` it saw. A poll renews the lease only for its own chain: a message of a chain that lost
 * the lease (redelivered after the sweep started another) gets undefined and stops. A message without a
 * chain id (the first of a claim that did not pass it on) adopts the claim once, under an id of its own.
 */
export interface ClusterTrackers {
  register(cluster: string, sha: string, now: Date): Promise<void>;
  list(cluster: string): Promise<readonly TrackedRollout[]>;
  unregister(cluster: string, rollout: TrackedRollout): Promise<boolean>;
  claimChain(cluster: string, until: string, now: Date): Promise<string | undefined>;
  renewChain(cluster: string, chain: string | undefined, until: string): Promise<string | undefined>;
  releaseChain(cluster: string, chain: string): Promise<void>;
  /**
   * The chain item and the registrations in one read (what a poll starts from): a poll whose chain the
   * item names, already polled and with lease enough left, need not renew it.
   */
  read?(
    cluster: string,
  ): Promise<{ readonly chain?: ChainLease; readonly registered: readonly TrackedRollout[] }>;
}

/** The chain item as read: who owns the chain, until when, and whether a poll has renewed it since its claim. */
export interface ChainLease {
  readonly chain?: string;
  readonly leaseUntil?: string;
  readonly polled: boolean;
}

/** Rollouts not yet ended, with their deadline: what the reconcile sweep finishes when tracking stopped. */
export interface OpenRollouts {
  /** Each open counts (`opens`): a close at the count it read leaves a rollout opened again since. */
  open(sha: string, deadline: string): Promise<void>;
  close(sha: string, opens: number): Promise<void>;
  list(): Promise<readonly { sha: string; deadline: string; opens: number }[]>;
}

export interface RefPush {
  readonly repoKey: string;
  readonly ref: string;
  readonly before: string;
  readonly after: string;
  readonly receivedAt: string;
  readonly forced: boolean;
}

/** The pushes each ref received lately, newest first: how a ref moved, for repositories the orchestrator may not read. */
export interface RefPushes {
  record(push: RefPush): Promise<void>;
  recent(repoKey: string, ref: string): Promise<readonly RefPush[]>;
}

/** What release control reads of a rollout besides its apps. */
export interface ReleaseRecords {
  /** The summary with each wave's view and the control flags (no recomputation). */
  viewSummary(sha: string): Promise<SyncedSummary | undefined>;
  pushEvent(sha: string): Promise<StoredPushEvent | undefined>;
  /** Moves the rollout's deadline on to `deadline` (never back). */
  extendDeadline(sha: string, deadline: string): Promise<void>;
  /** Notes Argo CD instances that poll Git themselves where this rollout holds apps without a pin. */
  addUngated(sha: string, instances: readonly UngatedInstance[]): Promise<void>;
}

export interface RolloutReader {
  get(sha: string): Promise<Rollout | undefined>;
  /** The summary item alone (no apps). */
  summary(sha: string): Promise<RolloutSummary | undefined>;
  /** The app items of a rollout, or of one of its clusters. */
  listApps(sha: string, cluster?: string): Promise<readonly StoredApp[]>;
  decisions(sha: string): Promise<readonly DecisionRecord[]>;
  /**
   * An app's full list of ExternalSecret checks (its record may hold only a summary of them); undefined
   * when the rollout has no record of the app.
   */
  secretChecks?(sha: string, target: AppTarget): Promise<readonly SecretCheck[] | undefined>;
  /** What the rollout shows on the Git host (statuses, check run, deployments) and the hosts' last errors. */
  feedback?(sha: string): Promise<readonly FeedbackEntry[]>;
  history(
    target: Pick<AppTarget, 'cluster' | 'namespace' | 'name'>,
    page: { limit: number; cursor?: string },
  ): Promise<Page<HistoryEntry>>;
}

export interface HistoryEntry extends AppRecord {
  readonly sha: string;
  readonly repo: string;
  readonly ref: string;
  readonly trigger: string;
  readonly receivedAt: string;
}
