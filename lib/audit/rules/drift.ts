import type { ApplicationView } from '../application.js';
import { observations } from '../history.js';
import { type AuditContext, type AuditRule, capped, draft } from '../rule.js';
import type { AuditInput, JsonValue } from '../types.js';

export const driftRule: AuditRule = {
  id: 'drift',
  severity: 'medium',
  title: 'Out of sync at the current revision',
  docs: 'Find what changes the live objects (the OutOfSync resources), then put that change in Git, ignore fields another controller owns (ignoreDifferences), or enable selfHeal.',
  needs: ['currentRevision'],
  check(context) {
    const { app, input, options } = context;
    if (app.sync.status !== 'OutOfSync') return [];
    // A sync under way is expected to be OutOfSync; operation-stuck reports one that never ends.
    if (app.operation?.phase === 'Running') return [];
    const revision = atCurrentRevision(app, input);
    if (revision === undefined) return [];
    const since = outOfSyncSince(context, revision);
    if (since !== undefined && input.now.getTime() - since < options.driftGraceMs) return [];
    const differing = app.resources
      .filter((r) => r.status === 'OutOfSync')
      .map((r) => [r.kind, r.namespace, r.name].filter(Boolean).join('/'));
    const shown = capped(differing, options.maxEvidenceItems);
    const evidence: Record<string, JsonValue> = {
      syncStatus: 'OutOfSync',
      revision,
      outOfSyncResources: shown.items,
    };
    if (shown.more > 0) evidence.moreResources = shown.more;
    if (since !== undefined) evidence.outOfSyncSince = new Date(since).toISOString();
    const count = differing.length === 0 ? '' : ` (${differing.length} resource(s) differ)`;
    return [
      draft(driftRule, context, {
        message: `OutOfSync at the current revision ${revision.slice(0, 12)}${count}`,
        evidence,
      }),
    ];
  },
};

/** The synced revision when it is the current commit of the target revision (every source, if several). */
function atCurrentRevision(app: ApplicationView, input: AuditInput): string | undefined {
  if (app.multiSource) {
    const current = input.currentRevisions;
    const synced = app.sync.revisions;
    if (current === undefined || current.length === 0 || current.length !== synced.length) return undefined;
    return current.every((rev, i) => rev !== undefined && rev === synced[i]) ? synced.join(',') : undefined;
  }
  const synced = app.sync.revision;
  return synced !== undefined && synced === input.currentRevision ? synced : undefined;
}

/** When the latest unbroken run of OutOfSync observations at this revision began, per the history. */
function outOfSyncSince(context: AuditContext, revision: string): number | undefined {
  const entries = observations(context.input.history);
  const first = revision.split(',')[0];
  let since: number | undefined;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (entry === undefined || entry.syncStatus !== 'OutOfSync') break;
    if (entry.revision !== undefined && entry.revision !== first && entry.revision !== revision) break;
    since = entry.at;
  }
  return since;
}
