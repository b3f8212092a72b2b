import { type Application, parseApplication } from '../argocd/application.js';
import { type ApplicationSet, parseApplicationSet } from '../argocd/application-set.js';
import { type GitRepository, parseGitRepository } from '../flux/git-repository.js';
import type { AppTarget, TargetKind } from '../rollouts/model.js';
import type { ChangedFiles } from '../webhook/push-event.js';
import { decideApplication, decideApplicationSet, decideGitRepository, type Verdict } from './decide.js';
import { attributeRepoKeys } from './failure-keys.js';
import { identify, type Parsed } from './raw-object.js';
import { canonicalRepoKeys } from './repo-url.js';
import type { PushedRef } from './revision.js';

/** One object as listed from one cluster of the fleet. */
export interface FleetObject {
  readonly cluster: string;
  readonly kind: TargetKind;
  readonly raw: unknown;
}

/** `raw` is kept for what fan-out reads beyond matching (annotations, destination stores). */
export type IndexedObject = { readonly cluster: string; readonly raw: unknown } & (
  | { readonly kind: 'Application'; readonly value: Application }
  | { readonly kind: 'ApplicationSet'; readonly value: ApplicationSet }
  | { readonly kind: 'GitRepository'; readonly value: GitRepository }
);

/** An object whose repository matched the push, with what to do about it and why. */
export interface ObjectMatch extends Verdict {
  readonly target: AppTarget;
  readonly object: IndexedObject;
}

/** An object that could not be read; fan-out records it (decision `error`) instead of guessing. */
export interface ParseFailure {
  readonly cluster: string;
  readonly kind: TargetKind;
  readonly namespace?: string;
  readonly name?: string;
  readonly reason: string;
}

export interface PushToMatch extends PushedRef {
  readonly repo: { readonly urls: readonly string[]; readonly webUrl?: string };
}

export interface MatchResult {
  /** Every object whose repository matched, whatever its decision. */
  readonly matches: readonly ObjectMatch[];
  /** Objects that failed to parse and name this repository somewhere. */
  readonly failures: readonly ParseFailure[];
}

export interface MatchIndex {
  /** Costs O(objects of the pushed repository), not O(fleet). */
  match(push: PushToMatch, changedFiles: ChangedFiles): MatchResult;
  /** Every object of the fleet that failed to parse, whichever repository it names. */
  readonly failures: readonly ParseFailure[];
}

function parseFleetObject(object: FleetObject): Parsed<IndexedObject> {
  const { cluster, kind, raw } = object;
  const wrap = <T>(parsed: Parsed<T>, make: (value: T) => IndexedObject): Parsed<IndexedObject> =>
    parsed.ok ? { ok: true, value: make(parsed.value) } : parsed;
  switch (kind) {
    case 'Application':
      return wrap(parseApplication(raw), (value) => ({ cluster, kind, value, raw }));
    case 'ApplicationSet':
      return wrap(parseApplicationSet(raw), (value) => ({ cluster, kind, value, raw }));
    case 'GitRepository':
      return wrap(parseGitRepository(raw), (value) => ({ cluster, kind, value, raw }));
    default:
      return { ok: false, reason: `unsupported kind ${String(kind)}` };
  }
}

function repoKeysOf(object: IndexedObject): Set<string> {
  switch (object.kind) {
    case 'Application':
      return new Set(object.value.sources.flatMap((s) => (s.repoKey === undefined ? [] : [s.repoKey])));
    case 'ApplicationSet':
      return new Set(object.value.gitGenerators.map((g) => g.repoKey));
    case 'GitRepository':
      return new Set([object.value.repoKey]);
  }
}

function decide(
  object: IndexedObject,
  keys: ReadonlySet<string>,
  push: PushedRef,
  changed: ChangedFiles,
): Verdict | undefined {
  switch (object.kind) {
    case 'Application':
      return decideApplication(object.value, keys, push, changed);
    case 'ApplicationSet':
      return decideApplicationSet(object.value, keys, push, changed);
    case 'GitRepository':
      return decideGitRepository(object.value, push);
  }
}

function addTo<T>(map: Map<string, T[]>, key: string, item: T): void {
  const bucket = map.get(key);
  if (bucket) bucket.push(item);
  else map.set(key, [item]);
}

/** Parse every object of the fleet once and bucket it by canonical repository key. */
export function buildMatchIndex(objects: Iterable<FleetObject>): MatchIndex {
  const byRepo = new Map<string, IndexedObject[]>();
  const failuresByRepo = new Map<string, ParseFailure[]>();
  const failures: ParseFailure[] = [];
  for (const object of objects) {
    const parsed = parseFleetObject(object);
    if (parsed.ok) {
      for (const key of repoKeysOf(parsed.value)) addTo(byRepo, key, parsed.value);
      continue;
    }
    const failure = {
      cluster: object.cluster,
      kind: object.kind,
      ...identify(object.raw),
      reason: parsed.reason,
    };
    failures.push(failure);
    for (const key of attributeRepoKeys(object.raw)) addTo(failuresByRepo, key, failure);
  }

  return {
    failures,
    match(push, changedFiles) {
      const keys = canonicalRepoKeys(
        push.repo.webUrl === undefined ? push.repo.urls : [...push.repo.urls, push.repo.webUrl],
      );
      const seen = new Set<IndexedObject>();
      const matches: ObjectMatch[] = [];
      const found = new Set<ParseFailure>();
      for (const key of keys) {
        for (const failure of failuresByRepo.get(key) ?? []) found.add(failure);
        for (const object of byRepo.get(key) ?? []) {
          if (seen.has(object)) continue;
          seen.add(object);
          const verdict = decide(object, keys, push, changedFiles);
          if (!verdict) continue;
          const { cluster, kind, value } = object;
          matches.push({
            target: { cluster, kind, namespace: value.namespace, name: value.name },
            object,
            ...verdict,
          });
        }
      }
      return { matches, failures: [...found] };
    },
  };
}
