import type { StoreCoverage } from '../secrets/store-coverage.js';
import type { RegistryCatchUpReport } from './missed-images.js';
import type { MissedWebhookReport } from './missed-webhooks.js';
import type { UnreadCluster } from './read-clusters.js';

/** What one pass did and what it could not do; returned by `runReconcile` and logged (a plain JSON record). */
export type ReconcileReport = {
  readonly startedAt: string;
  readonly durationMs: number;
  readonly clusters: { readonly read: readonly string[]; readonly unread: readonly UnreadCluster[] };
  /** Application objects read. */
  readonly applications: number;
  readonly repositories: {
    /** Canonical keys of the repositories whose refs were listed. */
    readonly read: readonly string[];
    readonly failed: readonly { readonly repo: string; readonly error: string }[];
  };
  readonly missedWebhooks: readonly MissedWebhookReport[];
  /** The ECR catch-up (with `ECR_REPOSITORY_ARNS`): images apps are behind that no event delivered. */
  readonly registryCatchUp?: RegistryCatchUpReport;
  readonly findings: {
    /** New or reopened in this pass. */
    readonly created: number;
    readonly resolved: number;
    readonly open: number;
    /** Items written (unchanged open findings are rewritten at most hourly). */
    readonly written: number;
  };
  readonly digest: 'sent' | 'failed' | 'nothing-changed';
  /** Per cluster, the ExternalSecret preflight's reach: `3 of 4 stores readable`, and why the rest are not. */
  readonly preflightCoverage?: readonly StoreCoverage[];
  readonly skipped: SkippedReport;
};

export interface InvalidApplication {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
  readonly reason: string;
}

export interface SkippedReport {
  /** Applications that do not parse: audited leniently, never checked for missed webhooks. */
  readonly invalidApplications: readonly InvalidApplication[];
  /** Applications with a Git source whose repository is not in the fleet file (never read). */
  readonly unlistedRepositoryApps: number;
  /** Applications not audited because the time budget ran out; their findings stay as they were. */
  readonly notAudited: number;
  /** Destination clusters whose live autoscalers could not be read (that rule's findings are held). */
  readonly liveObjects: readonly UnreadCluster[];
  /** Argo CD clusters whose AppProjects could not be read (with `readAppProjects`). */
  readonly appProjects: readonly UnreadCluster[];
}

/** What is kept of the last full pass (`GET /findings` says whether one ever ran, and when). */
export interface PassSummary {
  readonly startedAt: string;
  readonly durationMs: number;
  readonly clustersRead: number;
  readonly clustersUnread: number;
  readonly findingsOpen: number;
}

export function summarizePass(report: ReconcileReport): PassSummary {
  return {
    startedAt: report.startedAt,
    durationMs: report.durationMs,
    clustersRead: report.clusters.read.length,
    clustersUnread: report.clusters.unread.length,
    findingsOpen: report.findings.open,
  };
}
