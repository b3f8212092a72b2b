import type { Application } from '../argocd/application.js';
import { parseApplication } from '../argocd/application.js';
import { parseApplicationSet } from '../argocd/application-set.js';
import { parseGitRepository } from '../flux/git-repository.js';
import type { AppTarget, TargetKind } from '../rollouts/model.js';
import { type CompiledRules, compileRulesOf, type SingleSource, singleSourceOf } from './compiled-decide.js';
import { attributeRepoKeys } from './failure-keys.js';
import type { IndexedObject, ParseFailure } from './match-index.js';
import { identify, isRecord, type Parsed } from './raw-object.js';

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
  } as const;
  const reason = object.kind === 'Application' ? ignoredSourcesReason(object.value) : undefined;
  if (reason === undefined || object.kind !== 'Application') return { ...entry, failureKeys: new Set() };
  return {
    ...entry,
    failure: { cluster, kind: listed.kind, namespace, name, reason },
    failureKeys: ignoredSourceKeys(object.value, listed.raw),
  };
}
