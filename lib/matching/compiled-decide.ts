import type { Application, ApplicationSource } from '../argocd/application.js';
import type { ApplicationSet, GitGenerator } from '../argocd/application-set.js';
import type { ChangedPaths } from './changed-paths.js';
import {
  best,
  decideGitRepository,
  pathsReason,
  pushed,
  sourceLabel,
  sourcePaths,
  type Verdict,
  withIgnoredSources,
} from './decide.js';
import type { IndexedObject } from './match-index.js';
import {
  compilePaths,
  compileRules,
  filterVerdict,
  type PathFilter,
  type RuleFilter,
  rulesVerdict,
} from './path-filter.js';
import { type PushedRef, revisionMatches } from './revision.js';

/**
 * What `decide.ts` computes from an object on every push (refresh paths, labels, globs), computed once when
 * the object is indexed. The decisions are the same; `test/unit/matching/equivalence.test.ts` checks it.
 */
export type CompiledRules =
  | { readonly kind: 'Application'; readonly sources: readonly CompiledSource[] }
  | { readonly kind: 'ApplicationSet'; readonly generators: readonly CompiledGenerator[] }
  | { readonly kind: 'GitRepository' };

interface CompiledSource {
  readonly source: ApplicationSource;
  readonly label: string;
  readonly filter: PathFilter;
}

interface CompiledGenerator {
  readonly generator: GitGenerator;
  readonly filter: RuleFilter;
}

function compileApplication(app: Application): CompiledRules {
  const sources = app.sources.map((source, i) => ({
    source,
    label: sourceLabel(app, source, i),
    filter: compilePaths(sourcePaths(app, source)),
  }));
  return { kind: 'Application', sources };
}

function compileApplicationSet(appSet: ApplicationSet): CompiledRules {
  const generators = appSet.gitGenerators.map((generator) => ({
    generator,
    filter: compileRules([...generator.directories, ...generator.files]),
  }));
  return { kind: 'ApplicationSet', generators };
}

export function compileRulesOf(object: IndexedObject): CompiledRules {
  switch (object.kind) {
    case 'Application':
      return compileApplication(object.value);
    case 'ApplicationSet':
      return compileApplicationSet(object.value);
    case 'GitRepository':
      return { kind: 'GitRepository' };
  }
}

/** One push's facts, computed once and shared by every object the push looks at. */
export interface PushFacts {
  readonly push: PushedRef;
  readonly keys: ReadonlySet<string>;
  readonly changed: ChangedPaths;
  /** `revisionMatches` per distinct revision string: most of a repository's apps share a handful. */
  follows(revision: string): boolean;
}

export function pushFacts(push: PushedRef, keys: ReadonlySet<string>, changed: ChangedPaths): PushFacts {
  const memo = new Map<string, boolean>();
  return {
    push,
    keys,
    changed,
    follows(revision) {
      let follows = memo.get(revision);
      if (follows === undefined) {
        follows = revisionMatches(revision, push);
        memo.set(revision, follows);
      }
      return follows;
    },
  };
}

function revisionMiss(label: string, field: string, revision: string, facts: PushFacts): Verdict {
  const reason = `${label} ${field} '${revision}' does not follow ${pushed(facts.push)}`;
  return { decision: 'revision-miss', reason, hydrate: false };
}

function decideSources(app: Application, sources: readonly CompiledSource[], facts: PushFacts) {
  const verdicts: Verdict[] = [];
  for (const { source, label, filter } of sources) {
    if (source.repoKey === undefined || !facts.keys.has(source.repoKey)) continue;
    if (!facts.follows(source.targetRevision)) {
      verdicts.push(revisionMiss(label, 'targetRevision', source.targetRevision, facts));
      continue;
    }
    const decision = filterVerdict(filter, facts.changed);
    const reason = pathsReason(decision, label, filter.items.length > 0, facts.push, facts.changed);
    verdicts.push({ decision, reason, hydrate: source.hydrator === 'dry' && decision !== 'paths-miss' });
  }
  return withIgnoredSources(app, best(verdicts));
}

function decideGenerators(generators: readonly CompiledGenerator[], facts: PushFacts) {
  const verdicts: Verdict[] = [];
  for (const { generator, filter } of generators) {
    if (!facts.keys.has(generator.repoKey)) continue;
    if (!facts.follows(generator.revision)) {
      verdicts.push(revisionMiss(generator.where, 'revision', generator.revision, facts));
      continue;
    }
    const decision = rulesVerdict(filter, facts.changed);
    const reason = pathsReason(decision, generator.where, filter.size > 0, facts.push, facts.changed);
    verdicts.push({ decision, reason, hydrate: false });
  }
  return best(verdicts);
}

export function decideCompiled(
  object: IndexedObject,
  rules: CompiledRules,
  facts: PushFacts,
): Verdict | undefined {
  if (object.kind === 'Application' && rules.kind === 'Application') {
    return decideSources(object.value, rules.sources, facts);
  }
  if (rules.kind === 'ApplicationSet') return decideGenerators(rules.generators, facts);
  if (object.kind === 'GitRepository') return decideGitRepository(object.value, facts.push);
  return undefined;
}
