import type { FeedbackEntry } from '../../feedback/model.js';
import type { SecretCheck } from '../../secrets/secret-check.js';
import type { AppRecord, AppTarget, DecisionRecord, StoredApp } from '../app-model.js';
import type { Rollout, RolloutSummary } from '../rollout-model.js';

export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor?: string;
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
