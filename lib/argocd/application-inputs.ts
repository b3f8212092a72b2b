/**
 * Whether two listings of an Application give `parseApplication` the same input: every field it (and
 * `followPinnedSources`) reads, nothing else. Argo CD rewrites every app's status on each full
 * reconciliation (every 180 s by default); the index cache asks this of 10,000 relisted objects per warm
 * refresh, so it is hand-written field by field (monomorphic, no key arrays, no recursion into the status or
 * into the parts of a source the parser skips, such as `helm` or `kustomize`).
 *
 * The rule for every field: two records are compared by the fields read from them, anything else by `===`.
 * So a change of type (a record becoming a string, a string a number) always reads as a change and the
 * object is parsed again: this may say "different" for objects that parse alike, never "same" for objects
 * that do not. `test/unit/argocd/application-inputs.test.ts` holds it to that against the parser by mutating
 * every field of realistic objects; a field the parser starts to read must be added here.
 */
import { MANIFEST_PATHS_ANNOTATION as MANIFEST_PATHS, REFRESH_ANNOTATION as REFRESH } from './application.js';
import { FOLLOWS_ANNOTATION } from './pin.js';

type Raw = Record<string, unknown>;

function isRaw(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `readSource`'s fields (also the hydrator's `drySource`). */
function sameSource(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isRaw(a) || !isRaw(b)) return false;
  return (
    a.repoURL === b.repoURL &&
    a.targetRevision === b.targetRevision &&
    a.path === b.path &&
    a.chart === b.chart &&
    a.ref === b.ref
  );
}

function sameSyncSource(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isRaw(a) || !isRaw(b)) return false;
  return a.repoURL === b.repoURL && a.targetBranch === b.targetBranch && a.path === b.path;
}

function sameHydrator(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isRaw(a) || !isRaw(b)) return false;
  return sameSource(a.drySource, b.drySource) && sameSyncSource(a.syncSource, b.syncSource);
}

function sameSourceList(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameSource(a[i], b[i])) return false;
  return true;
}

function sameDestination(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isRaw(a) || !isRaw(b)) return false;
  return a.server === b.server && a.name === b.name && a.namespace === b.namespace;
}

function sameSyncPolicy(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isRaw(a) || !isRaw(b)) return false;
  const [x, y] = [a.automated, b.automated];
  if (x === y) return true;
  if (!isRaw(x) || !isRaw(y)) return false;
  return x.enabled === y.enabled;
}

function sameAnnotations(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isRaw(a) || !isRaw(b)) return false;
  return (
    a[MANIFEST_PATHS] === b[MANIFEST_PATHS] &&
    a[REFRESH] === b[REFRESH] &&
    a[FOLLOWS_ANNOTATION] === b[FOLLOWS_ANNOTATION]
  );
}

function sameSpec(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isRaw(a) || !isRaw(b)) return false;
  return (
    sameSourceList(a.sources, b.sources) &&
    sameSource(a.source, b.source) &&
    sameHydrator(a.sourceHydrator, b.sourceHydrator) &&
    sameDestination(a.destination, b.destination) &&
    sameSyncPolicy(a.syncPolicy, b.syncPolicy) &&
    a.project === b.project
  );
}

/** True only if `parseApplication(before)` and `parseApplication(after)` are bound to be equal. */
export function sameParseInput(before: unknown, after: unknown): boolean {
  if (before === after) return true;
  if (!isRaw(before) || !isRaw(after)) return false;
  const [was, now] = [before.metadata, after.metadata];
  if (!isRaw(was) || !isRaw(now)) return false;
  return (
    was.name === now.name &&
    was.namespace === now.namespace &&
    sameAnnotations(was.annotations, now.annotations) &&
    sameSpec(before.spec, after.spec)
  );
}
