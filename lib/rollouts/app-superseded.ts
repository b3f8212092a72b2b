import type { AppTarget, StoredApp } from './app-model.js';
import type { LiveVerdict } from './live-verdict.js';
import { isTerminal } from './state-model.js';
import type { AppContext, RefreshContext } from './work-model.js';

// A later commit of the ref and an app of this push: whether the later rollout owns it, whether it is
// superseded here, whether it already ended at the later commit.

const appKey = (t: AppTarget) => `${t.cluster}/${t.kind}/${t.namespace}/${t.name}`;

/** The head's records on this cluster, read once per work item and only when an app needs them. */
export function laterOwnership(context: RefreshContext): AppContext['ownedLater'] {
  const { head } = context.message;
  let owned: Promise<ReadonlySet<string>> | undefined;
  return async (target) => {
    if (head === undefined || head === context.meta.sha) return false;
    owned ??= context.deps.rollouts
      .listApps(head, context.cluster.name)
      .then((apps) => new Set(apps.filter((a) => a.state !== 'superseded').map(appKey)));
    return (await owned).has(appKey(target));
  };
}

/**
 * Superseded only when a later commit of the ref took the app over: it is live there, or that commit's
 * rollout has a record of it (recorded, and the reason returned). Otherwise (undefined) the refresh takes it
 * to the ref's head, which carries this push.
 */
export async function supersededBy(
  live: LiveVerdict,
  previous: StoredApp | undefined,
  app: AppTarget & { readonly destination?: string; readonly now: Date },
  context: AppContext,
): Promise<string | undefined> {
  const { meta, ledger } = context;
  const later = live.kind === 'at-commit' ? undefined : live.head;
  if (later === undefined) return undefined;
  if (live.kind !== 'superseded' && !(await context.ownedLater(app))) return undefined;
  const detail =
    live.kind === 'superseded'
      ? `superseded: live at ${later.slice(0, 12)}, a later commit of ${meta.ref}`
      : `superseded: the rollout of ${later.slice(0, 12)}, a later commit of ${meta.ref}, refreshes it`;
  if (previous === undefined || !isTerminal(previous.state)) {
    const { now, ...base } = app;
    await ledger.recordApp(meta, {
      ...base,
      state: 'superseded',
      decision: 'superseded',
      message: detail,
      ...(live.revision === undefined ? {} : { revision: live.revision }),
      finishedAt: now.toISOString(),
    });
  }
  return detail;
}

/** It ended at a later commit of its ref than the pushed one and is still there: nothing to do again. */
export function endedLater(previous: StoredApp, live: LiveVerdict, sha: string): boolean {
  return (
    isTerminal(previous.state) &&
    previous.revision !== undefined &&
    previous.revision !== sha &&
    live.revision === previous.revision
  );
}
