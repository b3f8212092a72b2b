import { type ChangedPaths, type KnownChangedPaths, someWithPrefix } from './changed-paths.js';
import { compileGlob, type Glob } from './glob.js';
import { cleanPath, type PathRule, type PathsVerdict } from './manifest-paths.js';

/**
 * One cleaned path item, compiled once per object: a literal is a set lookup in the push's candidates; a
 * glob is tested only against candidates that start with its literal prefix (anchored, so no other can).
 */
export type PathItem =
  | { readonly literal: string }
  | { readonly pattern: string; readonly glob: Glob; readonly prefix: string };

const META = /[*?[{\\]/;

export function compileItem(path: string): PathItem {
  const glob = compileGlob(path);
  if (glob === undefined) return { literal: path };
  const meta = path.search(META);
  return { pattern: path, glob, prefix: meta < 0 ? path : path.slice(0, meta) };
}

/** The root is only named by `''`, never by a glob (as `matchesAt` in manifest-paths). */
function itemMatchesAt(item: PathItem, candidate: string): boolean {
  if ('literal' in item) return item.literal === candidate;
  return item.pattern === candidate || (candidate !== '' && item.glob.test(candidate));
}

function itemCovers(item: PathItem, changed: KnownChangedPaths): boolean {
  if ('literal' in item) return changed.candidates.has(item.literal);
  let covers = changed.globs.get(item.pattern);
  if (covers === undefined) {
    covers =
      changed.candidates.has(item.pattern) ||
      someWithPrefix(changed, item.prefix, (candidate) => item.glob.test(candidate));
    changed.globs.set(item.pattern, covers);
  }
  return covers;
}

/** Whether some glob item covers a changed file or a directory above one (answered once per pattern per push). */
export const globsCover = (items: readonly PathItem[], changed: KnownChangedPaths): boolean =>
  items.some((item) => itemCovers(item, changed));

/** An Application source's refresh paths; no items means no filter. */
export interface PathFilter {
  readonly items: readonly PathItem[];
}

export const compilePaths = (paths: readonly string[]): PathFilter => ({ items: paths.map(compileItem) });

export function filterVerdict(filter: PathFilter, changed: ChangedPaths): PathsVerdict {
  if (filter.items.length === 0) return 'refreshed';
  if (!changed.known) return 'refreshed-unknown-files';
  return filter.items.some((item) => itemCovers(item, changed)) ? 'refreshed' : 'paths-miss';
}

/** An ApplicationSet git generator's `directories[]` and `files[]`, split into includes and excludes. */
export interface RuleFilter {
  readonly size: number;
  readonly includes: readonly PathItem[];
  readonly excludes: readonly PathItem[];
}

export function compileRules(rules: readonly PathRule[]): RuleFilter {
  const includes = rules.filter((r) => r.exclude !== true).map((r) => compileItem(cleanPath(r.path)));
  const excludes = rules.filter((r) => r.exclude === true).map((r) => compileItem(cleanPath(r.path)));
  return { size: rules.length, includes, excludes };
}

/** Some candidate is included and that same candidate is not excluded (`rulesCoverFile`). */
function rulesCover(filter: RuleFilter, changed: KnownChangedPaths): boolean {
  if (filter.excludes.length === 0) return filter.includes.some((item) => itemCovers(item, changed));
  const kept = (candidate: string) => !filter.excludes.some((item) => itemMatchesAt(item, candidate));
  return filter.includes.some((item) => {
    if ('literal' in item) return changed.candidates.has(item.literal) && kept(item.literal);
    const hit = (candidate: string) => item.glob.test(candidate) && kept(candidate);
    return (
      (changed.candidates.has(item.pattern) && kept(item.pattern)) ||
      someWithPrefix(changed, item.prefix, hit)
    );
  });
}

export function rulesVerdict(filter: RuleFilter, changed: ChangedPaths): PathsVerdict {
  if (filter.size === 0) return 'refreshed';
  if (!changed.known) return 'refreshed-unknown-files';
  return rulesCover(filter, changed) ? 'refreshed' : 'paths-miss';
}
