import type { Finding } from '../audit/types.js';
import type { EcrRepository, RepositoryImage } from '../registry/ecr-repository.js';
import type { DecisionRecord, StoredApp } from '../rollouts/app-model.js';

/** Where findings live between passes (DynamoDB in `lib/store/findings.ts`). */
export interface FindingsStore {
  /** Every finding, open and resolved (a resolved one until it expires), for the lifecycle. */
  loadAll(): Promise<Finding[]>;
  loadOpen(): Promise<Finding[]>;
  /** One cluster's findings, open and resolved: what a pass settles that cluster against. */
  loadCluster(cluster: string): Promise<Finding[]>;
  /** The clusters any stored finding is on (a cluster that left the fleet still has some). */
  storedClusters(): Promise<string[]>;
  /** Upserts whole findings (created, reopened, seen again, resolved). */
  write(findings: readonly Finding[]): Promise<void>;
}

/** One observation of an app's sync status by a pass (times in epoch ms). */
export interface AppObservation {
  readonly at: number;
  readonly syncStatus: string;
  /** `status.sync.revision`, or `revisions` joined by `,` for a multi-source app. */
  readonly revision?: string;
}

/** Since when one source of an app has been seen behind one commit. */
export interface BehindMarker {
  readonly source: number;
  readonly sha: string;
  readonly since: number;
}

/** What the reconciliation remembers about one Application between passes. */
export interface AppMemory {
  readonly observations: readonly AppObservation[];
  readonly behind: readonly BehindMarker[];
}

/** The memory of one Argo CD cluster's apps, keyed `namespace/name`. */
export interface ClusterMemory {
  readonly apps: ReadonlyMap<string, AppMemory>;
  /** How many stored items hold it (the store's business; passed back on save). */
  readonly chunks: number;
}

/** Reconcile memory (DynamoDB in `lib/store/reconcile-memory.ts`): a few items per pass, not one per app. */
export interface ReconcileMemory {
  /** One cluster's app memory (undefined: none stored), loaded as the pass reaches the cluster. */
  loadCluster(cluster: string): Promise<ClusterMemory | undefined>;
  saveCluster(cluster: string, apps: ReadonlyMap<string, AppMemory>, previous?: ClusterMemory): Promise<void>;
  /** Remembers a missed-webhook push as enqueued; false when it was enqueued before. */
  claimMissedWebhook(key: string, now: Date): Promise<boolean>;
  /** Forgets a claim whose message could not be enqueued, so the next pass tries again. */
  releaseMissedWebhook(key: string): Promise<void>;
}

/** Whether a rollout exists for a commit (a webhook for it arrived, or a pass enqueued it). */
export interface RolloutExistence {
  exists(sha: string): Promise<boolean>;
}

/** A commit's rollout as the catch-up sees it: whether it exists, and its app records (the rollout reader's). */
export interface CatchUpRollouts extends RolloutExistence {
  listApps(sha: string): Promise<readonly StoredApp[]>;
  /** The commit's per-object decisions (apps it left alone on purpose are not caught up). */
  decisions?(sha: string): Promise<readonly DecisionRecord[]>;
}

/** Why a repository's images could not be read: a counted, logged skip of the pass, never its failure. */
export type RegistryReadFailure = 'not-found' | 'access-denied' | 'out-of-time' | 'failed';

export type RegistryListing =
  | {
      readonly ok: true;
      readonly images: readonly RepositoryImage[];
      /** More pages than the reader takes (its image cap or the deadline): the newest may be missing. */
      readonly truncated: boolean;
    }
  | { readonly ok: false; readonly reason: RegistryReadFailure; readonly error: string };

/** A registry's image listing (ECR `DescribeImages` in `lib/aws/ecr-images.ts`); never throws. */
export interface RegistryImages {
  /** The repository's tagged images, page after page, until `deadline` (epoch ms). */
  describe(repository: EcrRepository, deadline: number): Promise<RegistryListing>;
}
