import type { AppRecord, AppTarget, DecisionRecord, Rollout, RolloutSummary, StoredApp } from './model.js';

export type NewRollout = Omit<RolloutSummary, 'status' | 'counts' | 'decisions' | 'refs' | 'finishedAt'>;

/** What every app record of a rollout repeats, so history entries stand on their own. */
export type RolloutMeta = Pick<RolloutSummary, 'sha' | 'repo' | 'ref' | 'trigger' | 'receivedAt'>;

/** Fields to change on an app record; `null` removes a field (a message that no longer applies). */
export type AppChange = {
  readonly [K in Exclude<keyof AppRecord, keyof AppTarget>]?: K extends 'state'
    ? AppRecord[K]
    : AppRecord[K] | null;
};

export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor?: string;
}

/** Written by fan-out: the rollout, its decisions, and one claim + record per refreshed app. */
export interface RolloutWriter {
  /** Creates the rollout for this commit, or adds `ref` to the one that exists. */
  start(rollout: NewRollout): Promise<'created' | 'exists'>;
  /**
   * Records one fan-out's decisions under `batch` (its delivery and attempt: a redelivery overwrites, never
   * appends) and re-derives the rollout's decision counts, one per object, the latest delivery's winning.
   */
  recordDecisions(sha: string, batch: string, decisions: readonly DecisionRecord[]): Promise<void>;
  /**
   * Writes fan-out's records in batches (25 per call): each replaces the app's record at `version`, which
   * fan-out read just before (an app already past these states is never in the batch).
   */
  putApps(meta: RolloutMeta, records: readonly (AppRecord & { readonly version: number })[]): Promise<void>;
  /** Writes an app's record unless it holds a later state already (a redelivery never moves it back). */
  recordApp(meta: RolloutMeta, record: AppRecord): Promise<void>;
}

/** Forward-only, conditional state changes: two pollers racing never lose an update or move a state back. */
export interface AppStateWriter {
  transition(
    sha: string,
    target: AppTarget,
    change: AppChange,
    expectedVersion: number,
  ): Promise<'updated' | 'conflict'>;
  /** Recomputes the rollout's counts and status from its apps (monotonic: a stale view never overwrites). */
  syncSummary(sha: string): Promise<(RolloutSummary & { readonly appsVersion: number }) | undefined>;
}

/**
 * One polling chain per rollout. Fan-out claims tracking (false: a chain is alive and will see the new apps);
 * the chain releases it only if no app changed since its last summary (false: keep polling).
 */
export interface TrackingClaims {
  claimTracking(sha: string, until: string, now: Date): Promise<boolean>;
  releaseTracking(sha: string, appsVersion: number): Promise<boolean>;
}

/** A cluster fan-out could not read (listing failed): kept on the rollout until a retry reads it. */
export interface ClusterErrors {
  recordClusterError(sha: string, cluster: string, message: string | undefined): Promise<void>;
}

export interface RolloutReader {
  get(sha: string): Promise<Rollout | undefined>;
  listApps(sha: string): Promise<readonly StoredApp[]>;
  decisions(sha: string): Promise<readonly DecisionRecord[]>;
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
