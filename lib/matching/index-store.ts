import { normaliseChangedFiles } from './changed-paths.js';
import { decideCompiled } from './compiled-decide.js';
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

export function createIndexStore(): IndexStore {
  const byRepo = new Map<string, Set<IndexEntry>>();
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
      const facts = pushFacts(push, keys, normaliseChangedFiles(changedFiles));
      // All URLs of a push nearly always name one key; only then can an object be met twice.
      const seen = keys.size > 1 ? new Set<IndexEntry>() : undefined;
      const matches: ObjectMatch[] = [];
      const found = new Set<IndexEntry>();
      for (const key of keys) {
        for (const entry of failuresByRepo.get(key) ?? []) found.add(entry);
        for (const entry of byRepo.get(key) ?? []) {
          if (!entry.parsed || seen?.has(entry)) continue;
          seen?.add(entry);
          const verdict = decideCompiled(entry.object, entry.rules, facts);
          if (!verdict) continue;
          const { decision, reason, hydrate } = verdict;
          matches.push({ target: entry.target, object: entry.object, decision, reason, hydrate });
        }
      }
      // An app matched through its readable sources carries its ignored ones in its reason instead.
      const matched = (entry: IndexEntry) => [...keys].some((key) => byRepo.get(key)?.has(entry));
      const reported = [...found].filter((entry) => !matched(entry));
      return { matches, failures: reported.map((entry) => entry.failure as ParseFailure) };
    },
  };

  return {
    index,
    add(entry) {
      if (entry.parsed) addTo(byRepo, entry.repoKeys, entry);
      else {
        unparsed.add(entry);
        failures = undefined;
      }
      addTo(failuresByRepo, entry.failureKeys, entry);
    },
    remove(entry) {
      if (entry.parsed) removeFrom(byRepo, entry.repoKeys, entry);
      else if (unparsed.delete(entry)) failures = undefined;
      removeFrom(failuresByRepo, entry.failureKeys, entry);
    },
  };
}
