import type { Metrics } from '../ports.js';
import type { ReconcileReport } from '../reconcile/report.js';

/** One reconcile pass in numbers: findings by change, missed webhooks, what could not be read. */
export function countReconcile(metrics: Metrics, report: ReconcileReport): void {
  metrics.count('ReconcileFindings', report.findings.created, { change: 'created' });
  metrics.count('ReconcileFindings', report.findings.resolved, { change: 'resolved' });
  metrics.count('ReconcileOpenFindings', report.findings.open);
  metrics.count('MissedWebhooks', report.missedWebhooks.filter((m) => m.action === 'enqueued').length);
  metrics.count('ClustersUnread', report.clusters.unread.length);
  metrics.count('AppsNotAudited', report.skipped.notAudited);
  metrics.timing('ReconcileDuration', report.durationMs);
}
