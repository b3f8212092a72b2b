import type { Application, ApplicationSource } from '../argocd/application.js';
import type { ApplicationSet, GitGenerator } from '../argocd/application-set.js';
import type { KnownChangedPaths } from './changed-paths.js';
import { decideGitRepository, sourceLabel, sourcePaths, type Verdict, withIgnoredSources } from './decide.js';
import type { IndexedObject } from './index-model.js';
import {
  compilePaths,
  compileRules,
  filterVerdict,
  globsCover,
  type PathFilter,
  type PathItem,
  type RuleFilter,
  rulesVerdict,
} from './path-filter.js';
import { better, type PushFacts, pathsVerdict, revisionMiss } from './push-facts.js';

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

/**
 * An Application with one source and no ignored ones, the shape of nearly every app of a monorepo: its
 * literal path items go into its repository's directory map (`index-store.ts`), so a push looks up its
 * changed paths there instead of asking every app. `decideSingle` decides it as `decideSources` would.
 */
export interface SingleSource {
  readonly repoKey: string;
  readonly revision: string;
  readonly label: string;
  readonly dry: boolean;
  readonly filtered: boolean;
  readonly literals: readonly string[];
  readonly globs: readonly PathItem[];
}

export function singleSourceOf(object: IndexedObject, rules: CompiledRules): SingleSource | undefined {
  if (object.kind !== 'Application' || rules.kind !== 'Application') return undefined;
  const [only, ...more] = rules.sources;
  if (only === undefined || more.length > 0 || (object.value.ignoredSources?.length ?? 0) > 0)
    return undefined;
  const { source, label, filter } = only;
  if (source.repoKey === undefined) return undefined;
  return {
    repoKey: source.repoKey,
    revision: source.targetRevision,
    label,
    dry: source.hydrator === 'dry',
    filtered: filter.items.length > 0,
    literals: filter.items.flatMap((item) => ('literal' in item ? [item.literal] : [])),
    globs: filter.items.filter((item) => !('literal' in item)),
  };
}

/**
 * `decideSources` for a `SingleSource` whose repository the push names and whose changed files are known;
 * `literalHit`: one of its literal items is a changed file or a directory above one.
 */
export function decideSingle(
  single: SingleSource,
  literalHit: boolean,
  changed: KnownChangedPaths,
  facts: PushFacts,
): Verdict {
  const { label, revision, filtered } = single;
  if (!facts.follows(revision)) return revisionMiss(label, 'targetRevision', revision, facts);
  const covered = !filtered || literalHit || (single.globs.length > 0 && globsCover(single.globs, changed));
  return pathsVerdict(label, covered ? 'refreshed' : 'paths-miss', filtered, single.dry, facts);
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

function decideSources(app: Application, sources: readonly CompiledSource[], facts: PushFacts) {
  let top: Verdict | undefined;
  for (const { source, label, filter } of sources) {
    if (source.repoKey === undefined || !facts.keys.has(source.repoKey)) continue;
    if (!facts.follows(source.targetRevision)) {
      top = better(top, revisionMiss(label, 'targetRevision', source.targetRevision, facts));
      continue;
    }
    const decision = filterVerdict(filter, facts.changed);
    top = better(
      top,
      pathsVerdict(label, decision, filter.items.length > 0, source.hydrator === 'dry', facts),
    );
  }
  return withIgnoredSources(app, top);
}

function decideGenerators(generators: readonly CompiledGenerator[], facts: PushFacts) {
  let top: Verdict | undefined;
  for (const { generator, filter } of generators) {
    if (!facts.keys.has(generator.repoKey)) continue;
    if (!facts.follows(generator.revision)) {
      top = better(top, revisionMiss(generator.where, 'revision', generator.revision, facts));
      continue;
    }
    const decision = rulesVerdict(filter, facts.changed);
    top = better(top, pathsVerdict(generator.where, decision, filter.size > 0, false, facts));
  }
  return top;
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
