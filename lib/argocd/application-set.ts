import type { PathRule } from '../matching/manifest-paths.js';
import {
  fail,
  optionalList,
  optionalRecord,
  optionalString,
  type Parsed,
  parseObject,
  type RawRecord,
  readMeta,
  record,
  requiredString,
} from '../matching/raw-object.js';
import { canonicalRepoKey } from '../matching/repo-url.js';

/** A git generator of an ApplicationSet, wherever it sits (top level, or inside matrix/merge). */
export interface GitGenerator {
  /** Where it sits, e.g. `spec.generators[0].matrix.generators[1].git`. */
  readonly where: string;
  readonly repoURL: string;
  readonly repoKey: string;
  readonly revision: string;
  readonly directories: readonly PathRule[];
  readonly files: readonly PathRule[];
}

export interface ApplicationSet {
  readonly namespace: string;
  readonly name: string;
  readonly gitGenerators: readonly GitGenerator[];
}

// Argo CD allows matrix/merge two levels deep; a little more costs nothing and bounds the walk.
const MAX_NESTING = 4;
const COMBINERS = ['matrix', 'merge'] as const;

function readRules(value: unknown, where: string): PathRule[] {
  return (optionalList(value, where) ?? []).map((item, i) => {
    const rule = record(item, `${where}[${i}]`);
    return { path: requiredString(rule.path, `${where}[${i}].path`), exclude: rule.exclude === true };
  });
}

function readGit(git: RawRecord, where: string): GitGenerator | undefined {
  const repoURL = requiredString(git.repoURL, `${where}.repoURL`);
  // A templated URL (`{{ .url }}` from a sibling generator) is only known at generation time: skip it.
  if (repoURL.includes('{{')) return undefined;
  const repoKey = canonicalRepoKey(repoURL);
  if (repoKey === undefined) fail(`${where}.repoURL is not a Git repository URL`);
  return {
    where,
    repoURL,
    repoKey,
    revision: optionalString(git.revision, `${where}.revision`) ?? '',
    directories: readRules(git.directories, `${where}.directories`),
    files: readRules(git.files, `${where}.files`),
  };
}

function collect(generators: readonly unknown[], where: string, depth: number, out: GitGenerator[]): void {
  generators.forEach((item, i) => {
    const at = `${where}[${i}]`;
    const generator = record(item, at);
    const git = optionalRecord(generator.git, `${at}.git`);
    const found = git && readGit(git, `${at}.git`);
    if (found) out.push(found);
    for (const combiner of COMBINERS) {
      const nested = optionalRecord(generator[combiner], `${at}.${combiner}`);
      if (!nested) continue;
      if (depth >= MAX_NESTING) fail(`${at}.${combiner} is nested too deep`);
      const children = optionalList(nested.generators, `${at}.${combiner}.generators`) ?? [];
      collect(children, `${at}.${combiner}.generators`, depth + 1, out);
    }
  });
}

/** An ApplicationSet with every git generator it has (nested ones included); never throws. */
export function parseApplicationSet(raw: unknown): Parsed<ApplicationSet> {
  return parseObject(() => {
    const meta = readMeta(raw);
    const spec = record(record(raw, 'object').spec, 'spec');
    const generators = optionalList(spec.generators, 'spec.generators');
    if (!generators) fail('spec.generators is missing');
    const gitGenerators: GitGenerator[] = [];
    collect(generators, 'spec.generators', 0, gitGenerators);
    return { namespace: meta.namespace, name: meta.name, gitGenerators };
  });
}
