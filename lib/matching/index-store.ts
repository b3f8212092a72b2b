import { imageKey, type RegistryImage } from '../registry/registry-event.js';
import type { AppTarget } from '../rollouts/app-model.js';
import type { KnownChangedPaths } from './changed-paths.js';
import { normaliseChangedFiles } from './changed-paths.js';
import { decideCompiled, decideSingle, type SingleSource } from './compiled-decide.js';
import type { Verdict } from './decide.js';
import type { IndexEntry } from './index-entry.js';
import type { MatchIndex, ObjectMatch, ParseFailure } from './index-model.js';
import { globsCover } from './path-filter.js';
import { type PushFacts, pushFacts } from './push-facts.js';
import { decideImageApplication } from './registry-decide.js';
import { canonicalRepoKeys } from './repo-url.js';

type ParsedEntry = Extract<IndexEntry, { readonly parsed: true }>;

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
  /** What a push walks, built again after the entries changed; see `Row`. */
  walk: Walk | undefined;
}

interface Walk {
  readonly rows: readonly Row[];
  readonly rowOf: ReadonlyMap<IndexEntry, Row>;
}

/**
 * One entry as a push walks the bucket. Rows are allocated together, in the entries' order, so the walk
 * reads memory in sequence instead of chasing each entry (created one by one among its parse's garbage);
 * `hit` is the serial of the last push that found one of its literal paths in the directory map.
 */
interface Row {
  /** Its `object` is read at match time: a status-only relisting replaces it in place (`takeNewStatus`). */
  readonly entry: ParsedEntry;
  readonly target: AppTarget;
  readonly single: SingleSource | undefined;
  readonly group: Group | undefined;
  hit: number;
}

/** One-source apps deciding alike but for their paths: one verdict each way per push for all of them. */
interface Group {
  readonly base: SingleSource;
  serial: number;
  covered?: Verdict;
  missed?: Verdict;
}

function walkOf(bucket: RepoBucket): Walk {
  if (bucket.walk) return bucket.walk;
  const rows: Row[] = [];
  const rowOf = new Map<IndexEntry, Row>();
  const groups = new Map<string, Group>();
  for (const entry of bucket.entries) {
    if (!entry.parsed) continue;
    const { single } = entry;
    let group: Group | undefined;
    if (single) {
      const key = JSON.stringify([single.revision, single.label, single.filtered, single.dry]);
      group = groups.get(key);
      if (!group) {
        group = { base: { ...single, literals: [], globs: [] }, serial: 0 };
        groups.set(key, group);
      }
    }
    const row = { entry, target: entry.target, single, group, hit: 0 };
    rows.push(row);
    rowOf.set(entry, row);
  }
  bucket.walk = { rows, rowOf };
  return bucket.walk;
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

/** Stamps the rows of one-source apps with a literal item among the changed paths. */
function stampHits(bucket: RepoBucket, walk: Walk, changed: KnownChangedPaths, serial: number): void {
  for (const path of changed.candidates) {
    for (const entry of bucket.byPath.get(path) ?? []) {
      const row = walk.rowOf.get(entry);
      if (row) row.hit = serial;
    }
  }
}

function singleVerdict(row: Row, group: Group, changed: KnownChangedPaths, facts: PushFacts, byMap: boolean) {
  if (group.serial !== facts.serial) {
    group.serial = facts.serial;
    group.covered = decideSingle(group.base, true, changed, facts);
    group.missed = decideSingle(group.base, false, changed, facts);
  }
  const single = row.single as SingleSource;
  const covered =
    (byMap ? row.hit === facts.serial : single.literals.some((path) => changed.candidates.has(path))) ||
    (single.globs.length > 0 && globsCover(single.globs, changed));
  return (covered ? group.covered : group.missed) as Verdict;
}

export function createIndexStore(): IndexStore {
  const byRepo = new Map<string, RepoBucket>();
  const failuresByRepo = new Map<string, Set<IndexEntry>>();
  // Applications by the image repository of their OCI sources: a registry push costs O(apps on it).
  const byImage = new Map<string, Set<IndexEntry>>();
  const matchImage = (image: RegistryImage): ObjectMatch[] => {
    const matches: ObjectMatch[] = [];
    for (const entry of byImage.get(imageKey(image)) ?? []) {
      if (!entry.parsed || entry.object.kind !== 'Application') continue;
      const verdict = decideImageApplication(entry.object.value, image, entry.object.raw);
      if (verdict === undefined) continue;
      const { decision, reason, hydrate } = verdict;
      matches.push({ target: entry.target, object: entry.object, decision, reason, hydrate });
    }
    return matches;
  };
  const unparsed = new Set<IndexEntry>();
  let failures: ParseFailure[] | undefined;
  let serial = 0;

  const index: MatchIndex = {
    get failures() {
      failures ??= [...unparsed].map((entry) => entry.failure as ParseFailure);
      return failures;
    },
    match(push, changedFiles) {
      if (push.image !== undefined) return { matches: matchImage(push.image), failures: [] };
      const keys = canonicalRepoKeys(
        push.repo.webUrl === undefined ? push.repo.urls : [...push.repo.urls, push.repo.webUrl],
      );
      const changed = normaliseChangedFiles(changedFiles);
      const facts = pushFacts(push, keys, changed, ++serial);
      // All URLs of a push nearly always name one key; only then can an object be met twice.
      const seen = keys.size > 1 ? new Set<IndexEntry>() : undefined;
      const matches: ObjectMatch[] = [];
      const found = new Set<IndexEntry>();
      for (const key of keys) {
        for (const entry of failuresByRepo.get(key) ?? []) found.add(entry);
        const bucket = byRepo.get(key);
        if (bucket === undefined) continue;
        const walk = walkOf(bucket);
        // Look the changed paths up in the directory map when they are fewer than the apps' literal items
        // (a big push asks each app instead: its paths would be more lookups than the apps have items).
        const byMap = changed.known && changed.candidates.size < bucket.literals;
        if (byMap) stampHits(bucket, walk, changed, facts.serial);
        for (const row of walk.rows) {
          if (seen?.has(row.entry)) continue;
          seen?.add(row.entry);
          const verdict =
            row.group !== undefined && changed.known
              ? singleVerdict(row, row.group, changed, facts, byMap)
              : decideCompiled(row.entry.object, row.entry.rules, facts);
          if (!verdict) continue;
          const { decision, reason, hydrate } = verdict;
          matches.push({ target: row.target, object: row.entry.object, decision, reason, hydrate });
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
      bucket = { entries: new Set(), byPath: new Map(), literals: 0, walk: undefined };
      byRepo.set(key, bucket);
    }
    return bucket;
  };

  const forget = (key: string) => {
    const bucket = byRepo.get(key);
    if (bucket) bucket.walk = undefined;
  };

  return {
    index,
    add(entry) {
      if (entry.parsed) {
        addTo(byImage, entry.imageKeys, entry);
        for (const key of entry.repoKeys) forget(key);
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
        removeFrom(byImage, entry.imageKeys, entry);
        for (const key of entry.repoKeys) forget(key);
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
