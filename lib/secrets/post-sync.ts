import { ESO_GROUP } from './external-secret.js';
import { arrayField, isRecord, metadataOf, type Rec, recordField, stringField } from './read-object.js';
import type { SecretCheck } from './secret-check.js';

const SYNCED_REASONS = new Set(['SecretSynced', 'ResourceSynced']);
const FOUND_MISSING = new Set(['missing-secret', 'missing-property', 'not-json']);

interface LiveState {
  readonly reason?: string;
  readonly message: string;
  readonly ready: boolean;
}

/**
 * After a sync: the destination cluster's ExternalSecrets (live objects) against the app's preflight
 * checks. Each check gets its ExternalSecret's `Ready` reason; `SecretSynced` where the preflight found a
 * secret or property missing (or a null/empty value) is flagged, since ESO reports success there.
 * Without preflight checks, every live ExternalSecret given is recorded on its own.
 */
export function recordPostSync(input: {
  live: readonly unknown[];
  preflight: readonly SecretCheck[];
}): SecretCheck[] {
  const states = new Map<string, LiveState>();
  for (const object of input.live) {
    if (!isRecord(object) || object.kind !== 'ExternalSecret') continue;
    if (typeof object.apiVersion !== 'string' || !object.apiVersion.startsWith(`${ESO_GROUP}/`)) continue;
    const { name, namespace } = metadataOf(object);
    if (name !== undefined) states.set(`${namespace ?? 'default'}/${name}`, liveState(object));
  }
  const relevant = input.preflight.filter((c) => !c.externalSecret.startsWith('('));
  if (relevant.length === 0) {
    return [...states].map(([id, state]) => ({
      externalSecret: id,
      field: 'status',
      outcome: state.ready ? 'ok' : 'error',
      message: state.message,
      ...(state.reason === undefined ? {} : { syncReason: state.reason }),
    }));
  }
  return input.preflight.map((check) => {
    if (check.externalSecret.startsWith('(')) return check;
    const state = states.get(check.externalSecret);
    if (!state)
      return {
        ...check,
        message: join(check.message, 'ExternalSecret not found on the destination cluster'),
      };
    const withReason = state.reason === undefined ? check : { ...check, syncReason: state.reason };
    if (state.reason !== undefined && SYNCED_REASONS.has(state.reason) && state.ready) {
      if (FOUND_MISSING.has(check.outcome) || check.esoGap !== undefined) {
        return {
          ...withReason,
          message: `ESO reports ${state.reason}, but the preflight found ${falsePositive(check)}: the Secret does not hold this value (${check.message ?? check.outcome})`,
        };
      }
      return withReason;
    }
    return { ...withReason, message: join(check.message, state.message) };
  });
}

function falsePositive(check: SecretCheck): string {
  if (check.outcome === 'missing-secret') return 'the secret missing';
  if (check.outcome === 'missing-property')
    return `property ${check.property ?? ''} missing`.replace('  ', ' ');
  if (check.outcome === 'not-json') return 'a payload that is not JSON';
  return 'a null or empty value';
}

function liveState(object: Rec): LiveState {
  const status = recordField(object, 'status') ?? {};
  const ready = (arrayField(status, 'conditions') ?? []).filter(isRecord).find((c) => c.type === 'Ready');
  if (!ready) return { ready: false, message: 'ExternalSecret has no Ready condition yet' };
  const reason = stringField(ready, 'reason') ?? undefined;
  const message = stringField(ready, 'message') ?? '';
  const isReady = ready.status === 'True';
  const text = `Ready=${isReady ? 'True' : 'False'}${reason ? ` ${reason}` : ''}${message ? `: ${message}` : ''}`;
  // syncedResourceVersion is "<generation>-<hash>" of the spec ESO last synced successfully.
  const synced = stringField(status, 'syncedResourceVersion');
  const { generation } = metadataOf(object);
  if (
    isReady &&
    typeof synced === 'string' &&
    generation !== undefined &&
    !synced.startsWith(`${generation}-`)
  ) {
    return {
      ready: false,
      message: `ESO has not yet synced generation ${generation} (last synced ${synced.split('-')[0]})`,
    };
  }
  return { ready: isReady, message: text, ...(reason ? { reason } : {}) };
}

function join(first: string | undefined, second: string): string {
  return first ? `${first}; ${second}` : second;
}
