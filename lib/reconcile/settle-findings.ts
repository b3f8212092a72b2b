import { buildFindingsDigest, type FindingsDigest, sortedForDigest } from '../audit/digest.js';
import { filterDigestChanges } from '../audit/digest-filter.js';
import { reconcileFindings } from '../audit/lifecycle.js';
import {
  type AuditNote,
  type Finding,
  type FindingDraft,
  SEVERITIES,
  type Severity,
} from '../audit/types.js';
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

/** A cluster's share of the pass: its findings and notes (the gate's and the unreadable apps' included). */
export interface ClusterAudit {
  readonly findings: readonly FindingDraft[];
  readonly notes: readonly AuditNote[];
}

/**
 * The pass's findings against the stored ones, one cluster at a time (its stored findings loaded, settled,
 * written and let go before the next), so a pass holds one cluster's findings, not the fleet's (100,000
 * apps carry ~300,000): created, seen, resolved, unchanged ones held by notes. `finish` resolves the
 * findings of clusters that left the fleet (or no longer run Argo CD), counts the open ones of clusters not
 * read, and builds the digest from what it kept: the first `maxItems` findings of each section and counts.
 */
export function createFindingsSettler(
  deps: SettleDeps,
  started: Date,
  lastSeenRefreshMs: number,
  digestFloor?: Severity,
) {
  const counts = { created: 0, resolved: 0, open: 0, written: 0 };
  const digest = digestAccumulator(DIGEST_ITEMS);
  const settled = new Set<string>();
  /** `resolve: false`: stores the cluster's findings, resolves none of its others (its apps were not read). */
  const settle = async (cluster: string, audited: ClusterAudit, scope = { resolve: true }) => {
    settled.add(cluster);
    const previous = await deps.findings.loadCluster(cluster);
    const changes = reconcileFindings(previous, audited.findings, started, {
      clusters: scope.resolve ? [cluster] : [],
      notes: audited.notes,
    });
    const writes = findingsToWrite(changes, previous, started, lastSeenRefreshMs);
    await deps.findings.write(writes);
    digest.add(filterDigestChanges(changes, deps.fleet.audit?.digest, digestFloor));
    counts.created += changes.created.length;
    counts.resolved += changes.resolved.length;
    counts.open += openAfter(changes);
    counts.written += writes.length;
  };
  return {
    settleCluster: settle,
    async finish(): Promise<{ counts: ReconcileReport['findings']; message?: FindingsDigest }> {
      const argoClusters = new Set(
        deps.fleet.clusters.flatMap((c) => (c.argocd === undefined ? [] : [c.name])),
      );
      for (const cluster of await deps.findings.storedClusters()) {
        if (settled.has(cluster)) continue;
        // A cluster that left the fleet: its findings resolve. One not read: left as it is, counted.
        if (!argoClusters.has(cluster)) await settle(cluster, { findings: [], notes: [] });
        else
          counts.open += (await deps.findings.loadCluster(cluster)).filter(
            (f) => f.resolvedAt === undefined,
          ).length;
      }
      const message = digest.build();
      return { counts, ...(message === undefined ? {} : { message }) };
    },
  };
}

/** Findings a digest lists in all (`buildFindingsDigest`'s default). */
const DIGEST_ITEMS = 20;

/**
 * What the digest needs of every cluster's changes, bounded: per section and severity, the first `keep`
 * findings in the digest's order (all it can list) and how many there were.
 */
function digestAccumulator(keep: number) {
  const kept = { created: [] as Finding[], resolved: [] as Finding[] };
  const totals = {
    created: {} as Partial<Record<Severity, number>>,
    resolved: {} as Partial<Record<Severity, number>>,
  };
  return {
    add(changes: { readonly created: readonly Finding[]; readonly resolved: readonly Finding[] }) {
      for (const title of ['created', 'resolved'] as const) {
        for (const f of changes[title]) totals[title][f.severity] = (totals[title][f.severity] ?? 0) + 1;
        kept[title] = SEVERITIES.flatMap((severity) =>
          sortedForDigest([...kept[title], ...changes[title]].filter((f) => f.severity === severity)).slice(
            0,
            keep,
          ),
        );
      }
    },
    build: () => buildFindingsDigest(kept, { maxItems: keep, totals }),
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
