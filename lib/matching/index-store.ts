import type { KnownChangedPaths } from './changed-paths.js';
import { normaliseChangedFiles } from './changed-paths.js';
import { decideCompiled, decideSingle } from './compiled-decide.js';
import type { IndexEntry } from './index-entry.js';
import type { MatchIndex, ObjectMatch, ParseFailure } from './match-index.js';
import { pushFacts } from './push-facts.js';
import { canonicalRepoKeys } from './repo-url.js';

/** Entries bucketed by canonical repository key; entries can be added and removed one at a time. */
export interface IndexStore {
  add(entry: IndexEntry): void;
  remove(entry: IndexEntry): void;
  readonly index: MatchIndex;
}

/**
 * One repository's entries, in the order they were added, and its directory map: each literal path item of
 * its one-source apps (`SingleSource`), cleaned, to the apps naming it. A push's changed paths are its files
 * and every directory above them, so the apps a push covers by a literal item are exactly those found under
 * its changed paths: a 1-file push makes as many lookups as the file has directories, whatever the
 * repository holds. (A trie would answer the same question; the changed paths already list the ancestors.)
 */
interface RepoBucket {
  readonly entries: Set<IndexEntry>;
  readonly byPath: Map<string, Set<IndexEntry>>;
  /** Literal items in `byPath`, over all apps: what asking every app would cost in lookups. */
  literals: number;
}

function addTo(map: Map<string, Set<IndexEntry>>, keys: Iterable<string>, entry: IndexEntry): void {
  for (const key of keys) {
    const bucket = map.get(key);
    if (bucket) bucket.add(entry);
    else map.set(key, new Set([entry]));
  }
}

function removeFrom(map: Map<string, Set<IndexEntry>>, keys: Iterable<string>, entry: IndexEntry): void {
  for (const key of keys) {
    const bucket = map.get(key);
    bucket?.delete(entry);
    if (bucket?.size === 0) map.delete(key);
  }
}

/** The one-source apps of `bucket` with a literal item among the changed paths. */
function literalHits(bucket: RepoBucket, changed: KnownChangedPaths): Set<IndexEntry> {
  const hits = new Set<IndexEntry>();
  for (const path of changed.candidates) {
    const named = bucket.byPath.get(path);
    if (named) for (const entry of named) hits.add(entry);
  }
  return hits;
}

export function createIndexStore(): IndexStore {
  const byRepo = new Map<string, RepoBucket>();
  const failuresByRepo = new Map<string, Set<IndexEntry>>();
  const unparsed = new Set<IndexEntry>();
  let failures: ParseFailure[] | undefined;

  const index: MatchIndex = {
    get failures() {
      failures ??= [...unparsed].map((entry) => entry.failure as ParseFailure);
      return failures;
    },
    match(push, changedFiles) {
      const keys = canonicalRepoKeys(
        push.repo.webUrl === undefined ? push.repo.urls : [...push.repo.urls, push.repo.webUrl],
      );
      const changed = normaliseChangedFiles(changedFiles);
      const facts = pushFacts(push, keys, changed);
      // All URLs of a push nearly always name one key; only then can an object be met twice.
      const seen = keys.size > 1 ? new Set<IndexEntry>() : undefined;
      const matches: ObjectMatch[] = [];
      const found = new Set<IndexEntry>();
      for (const key of keys) {
        for (const entry of failuresByRepo.get(key) ?? []) found.add(entry);
        const bucket = byRepo.get(key);
        if (bucket === undefined) continue;
        // Look the changed paths up in the directory map when they are fewer than the apps' literal items
        // (a big push asks each app instead: its paths would be more lookups than the apps have items).
        const hits =
          changed.known && changed.candidates.size < bucket.literals
            ? literalHits(bucket, changed)
            : undefined;
        for (const entry of bucket.entries) {
          if (!entry.parsed || seen?.has(entry)) continue;
          seen?.add(entry);
          const { single } = entry;
          const verdict =
            single !== undefined && changed.known
              ? decideSingle(
                  single,
                  hits === undefined
                    ? single.literals.some((path) => changed.candidates.has(path))
                    : hits.has(entry),
                  changed,
                  facts,
                )
              : decideCompiled(entry.object, entry.rules, facts);
          if (!verdict) continue;
          const { decision, reason, hydrate } = verdict;
          matches.push({ target: entry.target, object: entry.object, decision, reason, hydrate });
        }
      }
      // An app matched through its readable sources carries its ignored ones in its reason instead.
      const matched = (entry: IndexEntry) => [...keys].some((key) => byRepo.get(key)?.entries.has(entry));
      const reported = [...found].filter((entry) => !matched(entry));
      return { matches, failures: reported.map((entry) => entry.failure as ParseFailure) };
    },
  };

  const bucketOf = (key: string): RepoBucket => {
    let bucket = byRepo.get(key);
    if (!bucket) {
      bucket = { entries: new Set(), byPath: new Map(), literals: 0 };
      byRepo.set(key, bucket);
    }
    return bucket;
  };

  return {
    index,
    add(entry) {
      if (entry.parsed) {
        for (const key of entry.repoKeys) bucketOf(key).entries.add(entry);
        if (entry.single) {
          const bucket = bucketOf(entry.single.repoKey);
          const paths = new Set(entry.single.literals);
          addTo(bucket.byPath, paths, entry);
          bucket.literals += paths.size;
        }
      } else {
        unparsed.add(entry);
        failures = undefined;
      }
      addTo(failuresByRepo, entry.failureKeys, entry);
    },
    remove(entry) {
      if (entry.parsed) {
        if (entry.single) {
          const bucket = bucketOf(entry.single.repoKey);
          const paths = new Set(entry.single.literals);
          removeFrom(bucket.byPath, paths, entry);
          bucket.literals -= paths.size;
        }
        for (const key of entry.repoKeys) {
          const bucket = byRepo.get(key);
          bucket?.entries.delete(entry);
          if (bucket?.entries.size === 0) byRepo.delete(key);
        }
      } else if (unparsed.delete(entry)) failures = undefined;
      removeFrom(failuresByRepo, entry.failureKeys, entry);
    },
  };
}
