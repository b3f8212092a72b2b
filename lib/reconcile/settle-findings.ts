import { buildFindingsDigest, type FindingsDigest } from '../audit/digest.js';
import { filterDigestChanges } from '../audit/digest-filter.js';
import { reconcileFindings } from '../audit/lifecycle.js';
import type { AuditNote, FindingDraft, Severity } from '../audit/types.js';
import { errorMessage } from '../errors.js';
import type { FleetConfig } from '../fleet/fleet-config.js';
import type { Logger } from '../ports.js';
import { findingsToWrite, openAfter } from './findings-writes.js';
import type { FindingsStore } from './ports.js';
import type { ReconcileReport } from './report.js';

export interface SettleDeps {
  readonly fleet: FleetConfig;
  readonly findings: FindingsStore;
}

/**
 * The pass's findings against the stored ones: created, seen, resolved (on the clusters read, and on any
 * cluster that left the fleet), unchanged ones held by notes; writes what is worth writing.
 */
export async function settleFindings(
  deps: SettleDeps,
  clustersRead: readonly string[],
  audited: { readonly findings: readonly FindingDraft[]; readonly notes: readonly AuditNote[] },
  started: Date,
  lastSeenRefreshMs: number,
  digestFloor?: Severity,
): Promise<{ counts: ReconcileReport['findings']; message?: FindingsDigest }> {
  const previous = await deps.findings.loadAll();
  const argoClusters = new Set(deps.fleet.clusters.flatMap((c) => (c.argocd === undefined ? [] : [c.name])));
  // Findings of a cluster that left the fleet (or no longer runs Argo CD) resolve too.
  const gone = previous.map((f) => f.cluster).filter((c) => !argoClusters.has(c));
  const changes = reconcileFindings(previous, audited.findings, started, {
    clusters: [...clustersRead, ...gone],
    notes: audited.notes,
  });
  const writes = findingsToWrite(changes, previous, started, lastSeenRefreshMs);
  await deps.findings.write(writes);
  const message = buildFindingsDigest(filterDigestChanges(changes, deps.fleet.audit?.digest, digestFloor));
  return {
    counts: {
      created: changes.created.length,
      resolved: changes.resolved.length,
      open: openAfter(changes),
      written: writes.length,
    },
    ...(message === undefined ? {} : { message }),
  };
}

/** Posts the digest; a failure is logged and reported, never thrown. */
export async function sendDigest(
  digest: (message: FindingsDigest) => Promise<void>,
  message: FindingsDigest,
  log: Logger,
): Promise<'sent' | 'failed'> {
  try {
    await digest(message);
    return 'sent';
  } catch (error) {
    log.error('findings digest not sent', { error: errorMessage(error) });
    return 'failed';
  }
}
