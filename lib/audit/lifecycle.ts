import type { AuditNote, Finding, FindingDraft } from './types.js';

/** Identity of a finding: (cluster, rule, namespace, app, subject), as in the table's sort key. */
export function findingKey(
  finding: Pick<FindingDraft, 'cluster' | 'rule' | 'namespace' | 'app' | 'subject'>,
): string {
  return [finding.cluster, finding.rule, finding.namespace, finding.app, finding.subject ?? ''].join('#');
}

/** Note kinds after which a rule's earlier findings for that app stay as they are. */
const HOLDING_NOTES: ReadonlySet<AuditNote['kind']> = new Set(['skipped', 'partial', 'rule-error']);

export interface AuditScope {
  /** Clusters actually read in this pass. Findings on any other cluster are left untouched. */
  readonly clusters: Iterable<string>;
  /** The pass's notes: an app/rule that was skipped, partial or failed does not resolve its findings. */
  readonly notes?: readonly Pick<AuditNote, 'kind' | 'rule' | 'cluster' | 'namespace' | 'app'>[];
}

export interface FindingChanges {
  /** Everything to write: created, reopened, seen again (lastSeen moved) and resolved. */
  readonly upserts: readonly Finding[];
  /** New or reopened in this pass (the digest's "new"). */
  readonly created: readonly Finding[];
  readonly resolved: readonly Finding[];
  /** Previous findings left exactly as they were (out of scope, held, or already resolved). */
  readonly unchanged: readonly Finding[];
}

export function reconcileFindings(
  previous: readonly Finding[],
  current: readonly FindingDraft[],
  now: Date,
  scope: AuditScope,
): FindingChanges {
  const at = now.toISOString();
  const clusters = new Set(scope.clusters);
  const held = new Set(
    (scope.notes ?? [])
      .filter((n) => HOLDING_NOTES.has(n.kind))
      .map((n) => [n.cluster, n.namespace, n.app, n.rule].join('#')),
  );
  const isHeld = (f: Finding): boolean =>
    held.has([f.cluster, f.namespace, f.app, f.rule].join('#')) ||
    held.has([f.cluster, f.namespace, f.app, '*'].join('#'));
  const before = new Map(previous.map((f) => [findingKey(f), f]));
  const upserts: Finding[] = [];
  const created: Finding[] = [];
  const resolved: Finding[] = [];
  const unchanged: Finding[] = [];
  const seen = new Set<string>();
  for (const draft of current) {
    const key = findingKey(draft);
    if (seen.has(key)) continue;
    seen.add(key);
    const old = before.get(key);
    const next = toFinding(draft, old?.firstSeen ?? at, at);
    upserts.push(next);
    if (old === undefined || old.resolvedAt !== undefined) created.push(next);
  }
  for (const [key, old] of before) {
    if (seen.has(key)) continue;
    if (old.resolvedAt !== undefined || !clusters.has(old.cluster) || isHeld(old)) {
      unchanged.push(old);
      continue;
    }
    const closed: Finding = { ...old, resolvedAt: at };
    upserts.push(closed);
    resolved.push(closed);
  }
  return { upserts, created, resolved, unchanged };
}

/** Copies only a draft's own fields, so a stale `resolvedAt` can never ride along. */
function toFinding(draft: FindingDraft, firstSeen: string, lastSeen: string): Finding {
  return {
    rule: draft.rule,
    severity: draft.severity,
    cluster: draft.cluster,
    namespace: draft.namespace,
    app: draft.app,
    ...(draft.subject === undefined ? {} : { subject: draft.subject }),
    message: draft.message,
    evidence: draft.evidence,
    firstSeen,
    lastSeen,
  };
}
