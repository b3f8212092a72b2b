import type { SecretPolicy, StoreOverride } from '../fleet/fleet-config.js';
import { SECRET_POLICIES } from '../fleet/fleet-config.js';
import { extractFromManifests, type ManifestDocument, readLiveStores } from './extract.js';
import { type BoundReference, type ResolveDeps, resolveReferences } from './resolve.js';
import type { SecretCheck, SecretOutcome } from './secret-check.js';
import { resolveStore } from './store-resolution.js';

/** Application annotation that overrides the fleet's policy for one app: `block`, `warn` or `off`. */
export const SECRET_POLICY_ANNOTATION = 'gitops-sync.dev/secret-policy';

/** Outcomes that hold an app back under policy `block` (an unparseable manifest: Argo CD could not compare). */
export const BLOCKING_OUTCOMES: ReadonlySet<SecretOutcome> = new Set([
  'missing-secret',
  'missing-property',
  'not-json',
  'unparseable',
]);

export type PreflightVerdict = 'pass' | 'warn' | 'block';

export interface PreflightInput {
  readonly documents: readonly ManifestDocument[];
  /** Manifest files that do not parse (`unparseable` checks): a warn, or a block under policy `block`. */
  readonly unparseable?: readonly SecretCheck[];
  /** Helm charts whose templates were not rendered (true, or their paths). */
  readonly notRendered?: boolean | readonly string[];
  /** Why nothing rendered them (no Argo CD API for the cluster, or its failure), for the record. */
  readonly notRenderedReason?: string;
  /** The Git reader stopped at one of its bounds. */
  readonly limitReached?: boolean;
  /** Which bound, in words (`too many entries: …`). */
  readonly limitMessage?: string;
  /**
   * SecretStore/ClusterSecretStore objects read live from the destination cluster, or how to read them: then
   * read only when an ExternalSecret has a reference to resolve (most apps declare none).
   */
  readonly clusterStores: readonly unknown[] | (() => Promise<readonly unknown[]>);
  readonly overrides: readonly StoreOverride[];
  readonly policy: SecretPolicy;
  /** The app's destination namespace (where objects without one land). */
  readonly namespace?: string;
  /** The destination cluster's fleet name (for overrides scoped to a cluster). */
  readonly cluster?: string;
}

export interface PreflightResult {
  readonly checks: SecretCheck[];
  readonly verdict: PreflightVerdict;
  readonly summary: string;
}

/** The app's policy: its annotation when valid, else the fleet's (or cluster's) default. */
export function secretPolicyFor(
  annotations: Readonly<Record<string, unknown>> | undefined,
  fallback: SecretPolicy,
): SecretPolicy {
  const value = annotations?.[SECRET_POLICY_ANNOTATION];
  const trimmed = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  return SECRET_POLICIES.find((p) => p === trimmed) ?? fallback;
}

/** Checks every ExternalSecret an app's manifests declare before the app is refreshed. */
export async function preflightApp(input: PreflightInput, deps: ResolveDeps): Promise<PreflightResult> {
  if (input.policy === 'off')
    return { checks: [], verdict: 'pass', summary: 'secret preflight is off for this app' };
  const extracted = extractFromManifests(input.documents, { defaultNamespace: input.namespace ?? 'default' });
  const needsStores = extracted.externalSecrets.some((e) => e.references.some((r) => r.type !== 'invalid'));
  const live =
    typeof input.clusterStores !== 'function'
      ? input.clusterStores
      : needsStores
        ? await input.clusterStores()
        : [];
  const sources = {
    manifests: extracted.stores,
    cluster: readLiveStores(live),
    overrides: input.overrides,
    ...(input.cluster === undefined ? {} : { clusterName: input.cluster }),
  };
  const slots: (SecretCheck | number)[] = [...(input.unparseable ?? []), ...extracted.problems];
  const bound: BoundReference[] = [];
  for (const externalSecret of extracted.externalSecrets) {
    for (const reference of externalSecret.references) {
      if (reference.type === 'invalid') {
        const { field, outcome, message } = reference;
        slots.push({
          externalSecret: externalSecret.id,
          field,
          outcome,
          message,
          ...(reference.key ? { key: reference.key } : {}),
        });
        continue;
      }
      const store = resolveStore(reference.storeRef, externalSecret.namespace, sources);
      if (!store.ok) {
        const key = reference.type === 'find' ? reference.find.path : reference.remoteRef.key;
        slots.push({
          externalSecret: externalSecret.id,
          field: reference.field,
          ...(key === undefined ? {} : { key }),
          store: `${reference.storeRef.kind}/${reference.storeRef.name}`,
          outcome: store.outcome,
          message: store.message,
        });
        continue;
      }
      slots.push(bound.length);
      bound.push({ externalSecret, reference, store: store.store });
    }
  }
  const resolved = await resolveReferences(bound, deps);
  const checks = slots.flatMap((slot) => (typeof slot === 'number' ? (resolved[slot] ?? []) : [slot]));
  checks.push(...incompleteness(input));
  const decided = checks.map((check) => ({
    ...check,
    blocking: input.policy === 'block' && BLOCKING_OUTCOMES.has(check.outcome) && check.blocking !== false,
  }));
  const verdict: PreflightVerdict = decided.some((c) => c.blocking)
    ? 'block'
    : decided.some((c) => c.outcome !== 'ok' || c.esoGap !== undefined)
      ? 'warn'
      : 'pass';
  const summary = summarize(extracted.externalSecrets.length, decided, verdict);
  deps.logger.info('secret preflight', {
    externalSecrets: extracted.externalSecrets.length,
    checks: decided.length,
    verdict,
  });
  return { checks: decided, verdict, summary };
}

function incompleteness(input: PreflightInput): SecretCheck[] {
  const out: SecretCheck[] = [];
  const charts = Array.isArray(input.notRendered) ? input.notRendered : [];
  if (input.notRendered === true || charts.length > 0) {
    const where = charts.length > 0 ? ` (${charts.join(', ')})` : '';
    out.push({
      externalSecret: '(helm)',
      field: 'manifests',
      outcome: 'not-rendered',
      message: `Helm chart templates are not rendered${where}; their ExternalSecrets were not checked${input.notRenderedReason === undefined ? '' : `: ${input.notRenderedReason}`}`,
    });
  }
  if (input.limitReached) {
    out.push({
      externalSecret: '(manifests)',
      field: 'manifests',
      outcome: 'not-rendered',
      message: `manifest reading stopped at its limit${input.limitMessage ? ` (${input.limitMessage})` : ''}; ExternalSecrets beyond it were not checked`,
    });
  }
  return out;
}

function summarize(
  externalSecrets: number,
  checks: readonly SecretCheck[],
  verdict: PreflightVerdict,
): string {
  if (checks.length === 0) return 'no ExternalSecrets';
  const counts = new Map<string, number>();
  for (const check of checks) counts.set(check.outcome, (counts.get(check.outcome) ?? 0) + 1);
  const parts = [...counts].map(([outcome, n]) => `${n} ${outcome}`).join(', ');
  const blocking = checks.filter((c) => c.blocking).length;
  const tail = verdict === 'block' ? `; blocked by ${blocking} reference${blocking === 1 ? '' : 's'}` : '';
  return `${externalSecrets} ExternalSecret${externalSecrets === 1 ? '' : 's'}, ${checks.length} check${checks.length === 1 ? '' : 's'}: ${parts}${tail}`;
}
