import {
  DECODING_STRATEGIES,
  type DecodingStrategy,
  type FindSpec,
  type RemoteRef,
  type StoreRef,
} from './external-secret.js';
import { type Rec, recordField, stringField, stringMap } from './read-object.js';

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };
export const fail = (message: string): { ok: false; message: string } => ({ ok: false, message });

export function storeRefOf(object: Rec, field: string): Parsed<StoreRef | undefined> {
  const ref = recordField(object, field);
  if (ref === undefined) return { ok: true, value: undefined };
  if (ref === null) return fail(`${field} must be an object`);
  const name = stringField(ref, 'name');
  const kind = stringField(ref, 'kind');
  if (typeof name !== 'string' || name === '') return fail(`${field}.name is required`);
  if (kind === null) return fail(`${field}.kind must be a string`);
  // ESO's client manager treats every kind other than ClusterSecretStore as a namespaced SecretStore.
  return {
    ok: true,
    value: { kind: kind === 'ClusterSecretStore' ? 'ClusterSecretStore' : 'SecretStore', name },
  };
}

export function remoteRefOf(entry: Rec, field: string, v1: boolean, member = 'remoteRef'): Parsed<RemoteRef> {
  const ref = recordField(entry, member);
  if (!ref) return fail(`${field} must be an object`);
  const key = stringField(ref, 'key');
  if (typeof key !== 'string' || key === '') return fail(`${field}.key is required and must be a string`);
  const property = stringField(ref, 'property');
  const version = stringField(ref, 'version');
  if (property === null) return fail(`${field}.property must be a string`);
  if (version === null) return fail(`${field}.version must be a string`);
  const decoding = enumField(ref, 'decodingStrategy', DECODING_STRATEGIES, 'None');
  if (!decoding.ok) return fail(`${field}.${decoding.message}`);
  const metadata = enumField(ref, 'metadataPolicy', ['None', 'Fetch'] as const, 'None');
  if (!metadata.ok) return fail(`${field}.${metadata.message}`);
  const nullBytes = v1 ? enumField(ref, 'nullBytePolicy', ['Ignore', 'Fail'] as const, 'Ignore') : undefined;
  if (nullBytes && !nullBytes.ok) return fail(`${field}.${nullBytes.message}`);
  return {
    ok: true,
    value: {
      key,
      ...(property ? { property } : {}),
      ...(version ? { version } : {}),
      decodingStrategy: decoding.value as DecodingStrategy,
      metadataPolicy: metadata.value,
      nullBytePolicy: nullBytes?.ok ? nullBytes.value : 'Ignore',
    },
  };
}

export function findOf(find: Rec, field: string): Parsed<FindSpec> {
  const path = stringField(find, 'path');
  if (path === null) return fail(`${field}.path must be a string`);
  const name = recordField(find, 'name');
  if (name === null) return fail(`${field}.name must be an object`);
  const regexp = name ? stringField(name, 'regexp') : undefined;
  if (name && typeof regexp !== 'string') return fail(`${field}.name.regexp must be a string`);
  const tags = stringMap(find.tags);
  if (tags === null) return fail(`${field}.tags must map strings to strings`);
  const hasTags = tags !== undefined && Object.keys(tags).length > 0;
  // ESO's GetAllSecrets: neither a name nor tags is an error at sync time.
  if (typeof regexp !== 'string' && !hasTags) return fail('unexpected find operator');
  return {
    ok: true,
    value: {
      ...(typeof path === 'string' ? { path } : {}),
      ...(typeof regexp === 'string' ? { nameRegexp: regexp } : {}),
      ...(hasTags ? { tags } : {}),
    },
  };
}

export function enumField<T extends string>(
  object: Rec,
  field: string,
  values: readonly T[],
  fallback: T,
): Parsed<T> {
  const raw = stringField(object, field);
  if (raw === undefined || raw === '') return { ok: true, value: fallback };
  const value = values.find((v) => v === raw);
  return value === undefined ? fail(`${field} must be one of ${values.join(', ')}`) : { ok: true, value };
}
