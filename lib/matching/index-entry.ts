import type { Application } from '../argocd/application.js';
import { parseApplication } from '../argocd/application.js';
import { sameParseInput } from '../argocd/application-inputs.js';
import { parseApplicationSet } from '../argocd/application-set.js';
import { parseGitRepository } from '../flux/git-repository.js';
import type { AppTarget, TargetKind } from '../rollouts/app-model.js';
import { type CompiledRules, compileRulesOf, type SingleSource, singleSourceOf } from './compiled-decide.js';
import { attributeRepoKeys } from './failure-keys.js';
import type { IndexedObject, ParseFailure } from './index-model.js';
import { identify, isRecord, type Parsed, type RawRecord } from './raw-object.js';

/** One listed object as the index holds it: parsed and compiled, or a failure with the repositories it may name. */
export type IndexEntry =
  | {
      readonly parsed: true;
      readonly object: IndexedObject;
      readonly target: AppTarget;
      readonly rules: CompiledRules;
      /** Set for a one-source Application: its repository's directory map holds its literal paths. */
      readonly single: SingleSource | undefined;
      /** The repositories its readable parts use. */
      readonly repoKeys: ReadonlySet<string>;
      /** The image repositories its OCI and Helm OCI sources pull from (`oci-source.ts`). */
      readonly imageKeys: ReadonlySet<string>;
      /** A multi-source app with ignored sources, reported to pushes of what those might name. */
      readonly failure?: ParseFailure;
      readonly failureKeys: ReadonlySet<string>;
    }
  | {
      readonly parsed: false;
      readonly failure: ParseFailure;
      readonly failureKeys: ReadonlySet<string>;
    };

export interface ListedObject {
  readonly kind: TargetKind;
  readonly raw: unknown;
}

function parseObject(cluster: string, { kind, raw }: ListedObject): Parsed<IndexedObject> {
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

function imageKeysOf(object: IndexedObject): Set<string> {
  if (object.kind !== 'Application') return new Set();
  return new Set(object.value.sources.flatMap((s) => (s.imageKey === undefined ? [] : [s.imageKey])));
}

/** What the ignored entries of `spec.sources` might name, searched as leniently as unreadable objects. */
function ignoredSourceKeys(app: Application, raw: unknown): Set<string> {
  const spec = isRecord(raw) && isRecord(raw.spec) ? raw.spec : {};
  const list = Array.isArray(spec.sources) ? spec.sources : [];
  const keys = new Set<string>();
  for (const ignored of app.ignoredSources ?? []) {
    for (const key of attributeRepoKeys({ spec: list[ignored.position] })) keys.add(key);
  }
  return keys;
}

export function ignoredSourcesReason(app: Application): string | undefined {
  const ignored = app.ignoredSources ?? [];
  if (ignored.length === 0) return undefined;
  return ignored.map((i) => `sources[${i.position}] ignored (${i.reason})`).join('; ');
}

export function indexEntry(cluster: string, listed: ListedObject): IndexEntry {
  const parsed = parseObject(cluster, listed);
  if (!parsed.ok) {
    const failure = { cluster, kind: listed.kind, ...identify(listed.raw), reason: parsed.reason };
    return { parsed: false, failure, failureKeys: attributeRepoKeys(listed.raw) };
  }
  const object = parsed.value;
  const { namespace, name } = object.value;
  const rules = compileRulesOf(object);
  const entry = {
    parsed: true,
    object,
    target: { cluster, kind: object.kind, namespace, name },
    rules,
    single: singleSourceOf(object, rules),
    repoKeys: repoKeysOf(object),
    imageKeys: imageKeysOf(object),
  } as const;
  const reason = object.kind === 'Application' ? ignoredSourcesReason(object.value) : undefined;
  if (reason === undefined || object.kind !== 'Application') return { ...entry, failureKeys: new Set() };
  return {
    ...entry,
    failure: { cluster, kind: listed.kind, namespace, name, reason },
    failureKeys: ignoredSourceKeys(object.value, listed.raw),
  };
}

const MAX_DEPTH = 64;

/**
 * JSON equality (key order aside); deeper than `MAX_DEPTH` counts as different, so the object is parsed.
 * It runs once per relisted object (10,000 per warm refresh), so it is plain loops: no key arrays, no
 * closures, no `hasOwn` (a parsed JSON value has no inherited keys and no `undefined` member).
 */
function sameJson(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || depth > MAX_DEPTH) {
    return false;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as RawRecord;
  const y = b as RawRecord;
  let keys = 0;
  for (const key in x) {
    const value = y[key];
    if (value === undefined || !sameJson(x[key], value, depth + 1)) return false;
    keys++;
  }
  for (const _ in y) if (--keys < 0) return false;
  return keys === 0;
}

/**
 * Whether an Application relisted with a new `resourceVersion` decides matching as before. Argo CD writes
 * every app's status on each full reconciliation (`reconciledAt`, every 180 s by default), and that bumps
 * the resourceVersion without changing what matching decides from: the fields `parseApplication` reads
 * (`sameParseInput`), never the status (the bulk of the object). An app with ignored sources also reports
 * what those sources might name (`ignoredSourceKeys` reads them whole), so its spec is compared whole.
 */
export function decidesAsBefore(entry: IndexEntry, listed: ListedObject): boolean {
  if (!entry.parsed || entry.object.kind !== 'Application' || listed.kind !== 'Application') return false;
  const before = entry.object.raw;
  const after = listed.raw;
  if (!sameParseInput(before, after)) return false;
  const ignored = entry.object.value.ignoredSources;
  if (ignored === undefined || ignored.length === 0) return true;
  return isRecord(before) && isRecord(after) && sameJson(before.spec, after.spec, 0);
}

/**
 * Hands the entry the relisted object (whose status fan-out reads): a new `object` with the same parse, so
 * what earlier matches handed out stays as it was, while the entry keeps its compiled rules and its place
 * in the index store (a status-only relisting costs no store update; the store reads `entry.object` when
 * it matches). Only for an entry `decidesAsBefore` this object.
 */
export function takeNewStatus(entry: IndexEntry, listed: ListedObject): void {
  if (!entry.parsed) return;
  const { cluster, kind, value } = entry.object;
  // The literal in `parseObject`'s key order (one hidden class): a spread costs ~1 µs an object here.
  (entry as { object: IndexedObject }).object = { cluster, kind, value, raw: listed.raw } as IndexedObject;
}
