import type { AppTarget, StoredApp } from '../app-model.js';
import type { RolloutSummary } from '../rollout-model.js';
import type { StateCounts } from '../state-model.js';
import type { HeldLease } from './cluster-leases.js';

/** Fields to change on an app record; `null` removes a field (a message that no longer applies). */
export type AppChange = {
  readonly [K in Exclude<keyof StoredApp, keyof AppTarget | 'version'>]?: K extends 'state'
    ? StoredApp[K]
    : StoredApp[K] | null;
};

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
   * `done`: the cluster's work item ended; its progress (`done`, the reason removed) and decision counts go
   * in the same write as the view when they can, else `done.record()` writes them first.
   */
  syncSummary(
    sha: string,
    cluster?: string,
    apps?: readonly ViewedApp[],
    done?: ClusterDone,
  ): Promise<SyncedSummary | undefined>;
  /**
   * A poll of `cluster` that may write the rollout's view soon: a view written meanwhile by a poll side by
   * side waits for it (bounded), so their views go in one update. The returned function says it will not (or
   * no longer): its view was written, or it has none to write. Calling it twice is harmless.
   */
  expectView?(sha: string, cluster: string): () => void;
}

/** A work item's end, for `syncSummary` to record with the cluster's view (one summary write, not two). */
export interface ClusterDone {
  /** The cluster's decision counts (summed over its batches), set with its progress. */
  readonly decisions?: Readonly<Record<string, number>>;
  /** The progress written on its own: the summary's own write could not take it. */
  record(): Promise<void>;
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
  /** The cluster it deploys to when another than the one holding it (hub and spoke). */
  readonly destination?: string | undefined;
  readonly version: number;
  readonly finishedAt?: string | undefined;
  /** Stands in for `finishedAt` on a finished app without one (items written before every end set it). */
  readonly updatedAt?: string | undefined;
}

export interface TransitionWrite {
  readonly target: AppTarget;
  readonly change: AppChange;
  readonly expectedVersion: number;
}

/** `transition` for many apps of one cluster at once; only for the holder of that cluster's lease. */
export interface AppTransitions {
  /**
   * `lease`: the holder's lease is released in the last request of the batch when every change applies
   * (no conflict left to write after it): one request less than a release of its own. `released` says so.
   * `current`: the cluster's apps as read before the lease was taken, when the lease tells no one wrote
   * under it since (`HeldLease.previous`): the batch starts from them instead of reading them again.
   */
  transitionMany(
    sha: string,
    cluster: string,
    writes: readonly TransitionWrite[],
    lease?: Pick<HeldLease, 'holder' | 'expiresAt'>,
    current?: readonly StoredApp[],
  ): Promise<{
    readonly updated: number;
    readonly conflicts: readonly AppTarget[];
    readonly released?: boolean;
    /** The cluster's apps as they are after these writes (read under the lease: no one else wrote them). */
    readonly apps: readonly (StoredApp & Pick<ViewedApp, 'updatedAt'>)[];
  }>;
}
