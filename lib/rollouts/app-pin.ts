import { firstPinPatch, pinnedSources, releasePinPatch } from '../argocd/pin.js';
import { pinRevertedByOwner } from '../argocd/pin-owner.js';
import { withDeadline } from '../concurrency.js';
import { errorMessage } from '../errors.js';
import type { ObjectMatch } from '../matching/match-index.js';
import type { AppContext, RefreshContext } from './work-model.js';

// `control: pin` in fan-out: which apps may be pinned, the first pin of a held or blocked app, and the pin
// moved to the pushed commit with the refresh of a released one.

/** What the pin of `control: pin` repositories needs to know of this push. */
export interface PinScope {
  readonly repos: readonly string[];
  readonly repoKey: string | undefined;
  readonly sha: string;
}

function pinScope(context: RefreshContext): PinScope | undefined {
  const repos = context.deps.pinnedRepos;
  if (repos === undefined || repos.length === 0) return undefined;
  return { repos, repoKey: context.repoKey, sha: context.meta.sha };
}

/**
 * An app whose owner would write `targetRevision` back (an ApplicationSet without
 * `ignoreApplicationDifferences`, a parent without `ignoreDifferences` + `RespectIgnoreDifferences`) is
 * left unpinned: the revert would itself point Argo CD at the branch tip. Reconcile's audit says so
 * (`pin-reverted-by-owner`); here it is refreshed (or held) as an advisory app.
 */
export function pinScopeFor(match: ObjectMatch, context: RefreshContext): PinScope | undefined {
  const scope = pinScope(context);
  if (scope === undefined || match.object.kind !== 'Application') return scope;
  const sources = pinnedSources(match.object.raw, scope.repos).map((s) => s.index);
  if (sources.length === 0) return undefined;
  const owners = context.owners?.(match.object.raw) ?? [];
  const reverted = pinRevertedByOwner(match.object.raw, owners, {
    cluster: match.target.cluster,
    sourceIndexes: sources,
  });
  if (reverted === undefined) return scope;
  context.log.warn('not pinned: its owner would revert the pin', {
    app: match.target.name,
    reason: reverted.message,
  });
  return undefined;
}

/**
 * A held or blocked app of a `control: pin` repository is pinned where it is synced (nothing changes in the
 * cluster), so Argo CD's own polling or a refresh by anyone else cannot take it to the commit it waits on.
 * Best effort: a failed pin is logged, the hold is recorded anyway (advisory for that app).
 */
export async function pinWhereItIs(match: ObjectMatch, context: AppContext): Promise<void> {
  const scope = pinScopeFor(match, context);
  if (scope === undefined || match.object.kind !== 'Application') return;
  const patch = firstPinPatch(match.object.raw, scope.repos);
  if (patch === undefined) return;
  try {
    await withDeadline(
      context.cluster.patch(match.target, patch, (current) => firstPinPatch(current, scope.repos)),
      context.deadlineMs,
      `pin ${match.target.name}`,
    );
  } catch (error) {
    context.log.warn('pin not written: the hold is advisory for this app', {
      app: match.target.name,
      namespace: match.target.namespace,
      error: errorMessage(error),
    });
  }
}

function withAnnotations(patch: Record<string, unknown>, annotations: Record<string, string | null>) {
  const metadata = (patch.metadata ?? {}) as { annotations?: Record<string, unknown> };
  return { ...patch, metadata: { ...metadata, annotations: { ...metadata.annotations, ...annotations } } };
}

/** The refresh of an Application of a pinned repository also moves its pin to the pushed commit. */
export function withPinMove<P extends { metadata: { annotations: Record<string, string | null> } }>(
  match: ObjectMatch,
  refresh: P | undefined,
  pin: PinScope | undefined,
): object | undefined {
  const moved =
    pin === undefined || pin.repoKey === undefined
      ? undefined
      : releasePinPatch(match.object.raw, pin.repos, pin.repoKey, pin.sha);
  return moved === undefined ? refresh : withAnnotations(moved, refresh?.metadata.annotations ?? {});
}
