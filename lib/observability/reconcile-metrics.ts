import type { Metrics } from '../ports.js';
import type { ReconcileReport } from '../reconcile/report.js';

/** One reconcile pass in numbers: findings by change, missed webhooks, what could not be read. */
export function countReconcile(metrics: Metrics, report: ReconcileReport): void {
  metrics.count('ReconcileFindings', report.findings.created, { change: 'created' });
  metrics.count('ReconcileFindings', report.findings.resolved, { change: 'resolved' });
  metrics.count('ReconcileOpenFindings', report.findings.open);
  metrics.count('MissedWebhooks', report.missedWebhooks.filter((m) => m.action === 'enqueued').length);
  const registry = report.registryCatchUp;
  if (registry !== undefined) {
    metrics.count('MissedImagePushes', registry.images.filter((m) => m.action === 'enqueued').length);
    for (const reason of ['not-found', 'access-denied', 'out-of-time', 'failed'] as const) {
      const n = registry.skipped.filter((s) => s.reason === reason).length;
      if (n > 0) metrics.count('RegistryRepositoriesSkipped', n, { reason });
    }
  }
  metrics.count('ClustersUnread', report.clusters.unread.length);
  metrics.count('AppsNotAudited', report.skipped.notAudited);
  metrics.timing('ReconcileDuration', report.durationMs);
}
