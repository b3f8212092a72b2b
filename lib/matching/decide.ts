import type { Application, ApplicationSource } from '../argocd/application.js';
import type { ApplicationSet, GitGenerator } from '../argocd/application-set.js';
import { FLUX_DEFAULT_BRANCH, fluxRefMatches, type GitRepository } from '../flux/git-repository.js';
import type { ChangedFiles } from '../webhook/push-event.js';
import {
  cleanPath,
  type PathsVerdict,
  pathsCoverChanges,
  refreshPaths,
  rulesCoverChanges,
} from './manifest-paths.js';
import { type PushedRef, revisionMatches } from './revision.js';

export type MatchDecision = 'revision-miss' | PathsVerdict;

export interface Verdict {
  readonly decision: MatchDecision;
  /** Short and value-free (never a URL: it may carry credentials). */
  readonly reason: string;
  /** An Application's hydrator dry source matched: ask Argo CD to hydrate as well. */
  readonly hydrate: boolean;
}

export const RANK: Readonly<Record<MatchDecision, number>> = {
  'revision-miss': 0,
  'paths-miss': 1,
  'refreshed-unknown-files': 2,
  refreshed: 3,
};

/** The object's verdict is its best part's (refreshed once if any part matches); any dry match hydrates. */
export function best(verdicts: readonly Verdict[]): Verdict | undefined {
  let top: Verdict | undefined;
  for (const v of verdicts) if (!top || RANK[v.decision] > RANK[top.decision]) top = v;
  const hydrate = verdicts.some((v) => v.hydrate);
  return top && (top.hydrate === hydrate ? top : { ...top, hydrate });
}

export const pushed = (push: PushedRef): string => `${push.refType} ${push.refName}`;

export function pathsReason(
  verdict: PathsVerdict,
  label: string,
  filtered: boolean,
  push: PushedRef,
  changed: { readonly known: true } | { readonly known: false; readonly reason: string },
): string {
  const follows = `${label} follows ${pushed(push)}`;
  if (!filtered) return `${follows}; no path filter`;
  if (verdict === 'refreshed-unknown-files') {
    return `${follows}; changed files unknown (${changed.known ? 'n/a' : changed.reason})`;
  }
  return verdict === 'refreshed'
    ? `${follows}; paths cover a changed file`
    : `${follows}; no changed file under its paths`;
}

export function sourceLabel(app: Application, source: ApplicationSource, index: number): string {
  if (source.hydrator) return `${source.hydrator}Source`;
  const count = app.sources.length + (app.ignoredSources?.length ?? 0);
  return count === 1 ? 'source' : `sources[${source.position ?? index}]`;
}

/** Names the multi-source entries that were left out, so a decision never hides them. */
export function withIgnoredSources(app: Application, verdict: Verdict | undefined): Verdict | undefined {
  if (verdict === undefined || app.ignoredSources === undefined) return verdict;
  const notes = app.ignoredSources.map((i) => `; sources[${i.position}] ignored (${i.reason})`);
  return { ...verdict, reason: verdict.reason + notes.join('') };
}

export function sourcePaths(app: Application, source: ApplicationSource): string[] {
  // Argo CD: the hydrator's sync source refreshes on its own path only, whatever the annotation says.
  if (source.hydrator === 'sync') return [cleanPath(source.path)];
  return refreshPaths(app.manifestGeneratePaths, source.path);
}

/** The straightforward decision (every item against every file); the match index compiles the same rules. */
export function decideApplication(
  app: Application,
  keys: ReadonlySet<string>,
  push: PushedRef,
  changed: ChangedFiles,
): Verdict | undefined {
  const verdicts = app.sources.flatMap((source, i): Verdict[] => {
    if (source.repoKey === undefined || !keys.has(source.repoKey)) return [];
    const label = sourceLabel(app, source, i);
    if (!revisionMatches(source.targetRevision, push)) {
      const reason = `${label} targetRevision '${source.targetRevision}' does not follow ${pushed(push)}`;
      return [{ decision: 'revision-miss', reason, hydrate: false }];
    }
    const paths = sourcePaths(app, source);
    const decision = pathsCoverChanges(paths, changed);
    const reason = pathsReason(decision, label, paths.length > 0, push, changed);
    return [{ decision, reason, hydrate: source.hydrator === 'dry' && decision !== 'paths-miss' }];
  });
  return withIgnoredSources(app, best(verdicts));
}

function decideGenerator(gen: GitGenerator, push: PushedRef, changed: ChangedFiles): Verdict {
  if (!revisionMatches(gen.revision, push)) {
    const reason = `${gen.where} revision '${gen.revision}' does not follow ${pushed(push)}`;
    return { decision: 'revision-miss', reason, hydrate: false };
  }
  const rules = [...gen.directories, ...gen.files];
  const decision = rulesCoverChanges(rules, changed);
  return {
    decision,
    reason: pathsReason(decision, gen.where, rules.length > 0, push, changed),
    hydrate: false,
  };
}

export function decideApplicationSet(
  appSet: ApplicationSet,
  keys: ReadonlySet<string>,
  push: PushedRef,
  changed: ChangedFiles,
): Verdict | undefined {
  const generators = appSet.gitGenerators.filter((gen) => keys.has(gen.repoKey));
  return best(generators.map((gen) => decideGenerator(gen, push, changed)));
}

export function decideGitRepository(repo: GitRepository, push: PushedRef): Verdict {
  const fields = Object.entries(repo.ref).map(([field, value]) => `${field} ${value}`);
  const ref = fields.join(', ') || `branch ${FLUX_DEFAULT_BRANCH} by default`;
  return fluxRefMatches(repo.ref, push)
    ? { decision: 'refreshed', reason: `ref (${ref}) follows ${pushed(push)}`, hydrate: false }
    : { decision: 'revision-miss', reason: `ref (${ref}) does not follow ${pushed(push)}`, hydrate: false };
}
