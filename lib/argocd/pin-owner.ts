import type { FindingDraft } from '../audit/types.js';
import { PIN_REVERTED_RULE, rawOf } from './pin.js';

/** What generates or applies an Application: its ApplicationSet, or an app-of-apps parent Application. */
export interface PinOwner {
  readonly kind: 'ApplicationSet' | 'Application';
  readonly name: string;
  /** The owner's raw object. */
  readonly object: unknown;
}

type Json = Record<string, unknown>;
type Segment = string | number | '*';

/** `/spec/sources/0/targetRevision` → ['spec', 'sources', 0, 'targetRevision']. */
function pointerSegments(pointer: string): Segment[] {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** `.spec.sources[].targetRevision` → ['spec', 'sources', '*', 'targetRevision'] (simple paths only). */
function jqSegments(expression: string): Segment[] | undefined {
  const text = expression.trim();
  if (!/^(\.[A-Za-z_][A-Za-z0-9_]*(\[\d*\])?)+$/.test(text)) return undefined;
  const segments: Segment[] = [];
  for (const match of text.matchAll(/\.([A-Za-z_][A-Za-z0-9_]*)(\[(\d*)\])?/g)) {
    segments.push(match[1] as string);
    if (match[2] !== undefined) segments.push(match[3] === '' ? '*' : Number(match[3]));
  }
  return segments;
}

/** True when `covering` is `path` or a prefix of it (`*` matches any index). */
function covers(covering: readonly Segment[], path: readonly Segment[]): boolean {
  return (
    covering.length <= path.length &&
    covering.every((segment, i) => segment === path[i] || (segment === '*' && typeof path[i] === 'number'))
  );
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function ignoredPaths(entry: Json): Segment[][] {
  return [
    ...strings(entry.jsonPointers).map(pointerSegments),
    ...strings(entry.jqPathExpressions).flatMap((e) => {
      const segments = jqSegments(e);
      return segments === undefined ? [] : [segments];
    }),
  ];
}

function list(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter((v): v is Json => typeof v === 'object' && v !== null) : [];
}

/** The targetRevision paths of the sources the pin writes. */
function pinPaths(app: unknown, sourceIndexes: readonly number[]): Segment[][] {
  return rawOf(app).multi
    ? sourceIndexes.map((i) => ['spec', 'sources', i, 'targetRevision'])
    : [['spec', 'source', 'targetRevision']];
}

function appName(app: unknown): string {
  const name = (app as { metadata?: { name?: unknown } } | null)?.metadata?.name;
  return typeof name === 'string' ? name : '';
}

/** Why this owner would put the pin back (its regeneration or sync rewrites targetRevision); undefined: it would not. */
export function ownerRevertsPin(
  app: unknown,
  owner: PinOwner,
  sourceIndexes: readonly number[],
): string | undefined {
  const spec = ((owner.object as { spec?: unknown } | null)?.spec ?? {}) as Json;
  const paths = pinPaths(app, sourceIndexes);
  const name = appName(app);
  if (owner.kind === 'ApplicationSet') {
    const entries = list(spec.ignoreApplicationDifferences).filter(
      (e) => e.name === undefined || e.name === '' || e.name === name,
    );
    const ok = paths.every((p) => entries.some((e) => ignoredPaths(e).some((c) => covers(c, p))));
    return ok
      ? undefined
      : `ApplicationSet ${owner.name} has no ignoreApplicationDifferences for targetRevision: it would revert the pin`;
  }
  const entries = list(spec.ignoreDifferences).filter(
    (e) => e.group === 'argoproj.io' && e.kind === 'Application' && (e.name === undefined || e.name === name),
  );
  const ignored = paths.every((p) => entries.some((e) => ignoredPaths(e).some((c) => covers(c, p))));
  const respect = strings(((spec.syncPolicy ?? {}) as Json).syncOptions).includes(
    'RespectIgnoreDifferences=true',
  );
  if (ignored && respect) return undefined;
  return `parent Application ${owner.name} ${ignored ? 'lacks RespectIgnoreDifferences=true' : 'has no ignoreDifferences for targetRevision'}: its sync would revert the pin`;
}

/**
 * `pin-reverted-by-owner` (high) when any owner would revert the pin of these sources; the app is then
 * left unpinned (the caller sends no pin patch). Undefined: safe to pin.
 */
export function pinRevertedByOwner(
  app: unknown,
  owners: readonly PinOwner[],
  context: { readonly cluster: string; readonly sourceIndexes: readonly number[] },
): FindingDraft | undefined {
  const reasons = owners.flatMap((o) => ownerRevertsPin(app, o, context.sourceIndexes) ?? []);
  if (reasons.length === 0) return undefined;
  const namespace = (app as { metadata?: { namespace?: unknown } } | null)?.metadata?.namespace;
  return {
    rule: PIN_REVERTED_RULE,
    severity: 'high',
    cluster: context.cluster,
    namespace: typeof namespace === 'string' ? namespace : '',
    app: appName(app),
    message: `${reasons.join('; ')}. The app is left unpinned, so holds on it are advisory: add ignoreApplicationDifferences (jqPathExpressions: [.spec.source.targetRevision] or .spec.sources[].targetRevision) to the ApplicationSet, or ignoreDifferences with RespectIgnoreDifferences=true to the parent`,
    evidence: { owners: owners.map((o) => `${o.kind}/${o.name}`), reasons },
  };
}
