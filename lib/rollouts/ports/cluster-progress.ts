import type { ClusterProgress } from '../rollout-model.js';

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
