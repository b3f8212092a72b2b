import type { PassSummary } from '../reconcile/report.js';
import type { Page } from '../rollouts/ports/rollout-reader.js';

export interface FindingFilter {
  readonly cluster?: string;
  readonly severity?: string;
  readonly rule?: string;
  /** Include findings that have been resolved (default: open ones only). */
  readonly includeResolved?: boolean;
}

export interface FindingsReader {
  list(
    filter: FindingFilter,
    page: { limit: number; cursor?: string },
  ): Promise<Page<Record<string, unknown>>>;
  /** The last full reconcile pass (undefined: none has run), so an empty list can say why it is empty. */
  lastPass?(): Promise<PassSummary | undefined>;
}
