import {
  DELETION_POLICIES,
  type DeletionPolicy,
  type ExternalSecretDoc,
  type SecretReference,
  type StoreRef,
} from './external-secret.js';
import { enumField, fail, findOf, type Parsed, remoteRefOf, storeRefOf } from './parse-fields.js';
import { arrayField, isRecord, type Rec, recordField, stringField } from './read-object.js';

const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;

interface Context {
  readonly v1: boolean;
  readonly policy: DeletionPolicy;
  readonly seenKeys: Set<string>;
  readonly defaultStore: Parsed<StoreRef | undefined>;
}

const invalid = (
  field: string,
  message: string,
  outcome: 'error' | 'unsupported' = 'error',
  key?: string,
): SecretReference => ({ type: 'invalid', field, outcome, message, ...(key === undefined ? {} : { key }) });

/**
 * One ExternalSecret (`external-secrets.io/v1` or `v1beta1`) into its references. Every malformed part
 * becomes an `invalid` reference with a message (ESO's admission wording where it has one); never throws.
 */
export function parseExternalSecret(
  object: Rec,
  at: { path: string; apiVersion: string; namespace: string; name: string },
): ExternalSecretDoc {
  const base = {
    id: `${at.namespace}/${at.name}`,
    path: at.path,
    apiVersion: at.apiVersion,
    namespace: at.namespace,
    name: at.name,
  };
  const spec = recordField(object, 'spec');
  if (!spec) {
    const references = [invalid('spec', 'spec is missing or not an object')];
    return { ...base, targetName: at.name, deletionPolicy: 'Retain', references };
  }
  const references: SecretReference[] = [];
  const target = recordField(spec, 'target') ?? {};
  const targetName = stringField(target, 'name');
  const deletionPolicy = enumField(target, 'deletionPolicy', DELETION_POLICIES, 'Retain');
  const creationPolicy = stringField(target, 'creationPolicy') ?? 'Owner';
  const policy: DeletionPolicy = deletionPolicy.ok ? deletionPolicy.value : 'Retain';
  if (!deletionPolicy.ok) references.push(invalid('spec.target.deletionPolicy', deletionPolicy.message));
  if (policy === 'Delete' && ['Merge', 'None', 'CreateOrMerge'].includes(String(creationPolicy))) {
    references.push(
      invalid(
        'spec.target',
        "deletionPolicy=Delete must not be used when the controller doesn't own the secret. Please set creationPolicy=Owner",
      ),
    );
  }
  if (policy === 'Merge' && creationPolicy === 'None') {
    references.push(invalid('spec.target', 'deletionPolicy=Merge must not be used with creationPolicy=None'));
  }
  const defaultStore = storeRefOf(spec, 'secretStoreRef');
  if (!defaultStore.ok) references.push(invalid('spec.secretStoreRef', defaultStore.message));

  const data = arrayField(spec, 'data');
  const dataFrom = arrayField(spec, 'dataFrom');
  if (data === null) references.push(invalid('spec.data', 'spec.data must be a list'));
  if (dataFrom === null) references.push(invalid('spec.dataFrom', 'spec.dataFrom must be a list'));
  if (data !== null && dataFrom !== null && (data ?? []).length === 0 && (dataFrom ?? []).length === 0) {
    references.push(invalid('spec', 'either data or dataFrom should be specified'));
  }
  const context: Context = { v1: at.apiVersion.endsWith('/v1'), policy, seenKeys: new Set(), defaultStore };
  (data ?? []).forEach((entry, i) => {
    references.push(dataReference(entry, `spec.data[${i}]`, context));
  });
  (dataFrom ?? []).forEach((entry, i) => {
    references.push(dataFromReference(entry, `spec.dataFrom[${i}]`, context));
  });
  return {
    ...base,
    targetName: typeof targetName === 'string' ? targetName : at.name,
    deletionPolicy: policy,
    references,
  };
}

function dataReference(entry: unknown, field: string, context: Context): SecretReference {
  if (!isRecord(entry)) return invalid(field, `${field} is not an object`);
  const secretKey = stringField(entry, 'secretKey');
  if (typeof secretKey !== 'string' || !SECRET_KEY.test(secretKey) || secretKey.length > 253) {
    return invalid(field, `${field}.secretKey must match ^[-._a-zA-Z0-9]+$ (at most 253 characters)`);
  }
  // ESO's admission webhook only rejects duplicates under deletionPolicy Retain.
  if (context.policy === 'Retain' && context.seenKeys.has(secretKey)) {
    return invalid(field, `duplicate secretKey found: ${secretKey}`);
  }
  context.seenKeys.add(secretKey);
  if (recordField(recordField(entry, 'sourceRef') ?? {}, 'generatorRef')) {
    return invalid(field, `${field}.sourceRef.generatorRef is not checked by the preflight`, 'unsupported');
  }
  const remoteRef = remoteRefOf(entry, `${field}.remoteRef`, context.v1);
  if (!remoteRef.ok) return invalid(field, remoteRef.message);
  const storeRef = storeFor(entry, context);
  if (!storeRef.ok) return invalid(field, storeRef.message, 'error', remoteRef.value.key);
  return { type: 'data', field, secretKey, remoteRef: remoteRef.value, storeRef: storeRef.value };
}

function dataFromReference(entry: unknown, field: string, context: Context): SecretReference {
  if (!isRecord(entry)) return invalid(field, `${field} is not an object`);
  const generator = recordField(recordField(entry, 'sourceRef') ?? {}, 'generatorRef');
  const extract = recordField(entry, 'extract');
  const find = recordField(entry, 'find');
  const count = [extract, find, generator].filter(Boolean).length;
  if (count > 1) return invalid(field, 'extract, find, or generatorRef cannot be set at the same time');
  if (count === 0) return invalid(field, 'either extract, find, or sourceRef must be set to dataFrom');
  if (generator)
    return invalid(
      `${field}.sourceRef.generatorRef`,
      'generators are not checked by the preflight',
      'unsupported',
    );
  const storeRef = storeFor(entry, context);
  if (extract) {
    const remoteRef = remoteRefOf(entry, `${field}.extract`, context.v1, 'extract');
    if (!remoteRef.ok) return invalid(`${field}.extract`, remoteRef.message);
    if (!storeRef.ok) return invalid(`${field}.extract`, storeRef.message, 'error', remoteRef.value.key);
    return {
      type: 'extract',
      field: `${field}.extract`,
      remoteRef: remoteRef.value,
      storeRef: storeRef.value,
    };
  }
  const spec = findOf(find ?? {}, `${field}.find`);
  if (!spec.ok) return invalid(`${field}.find`, spec.message);
  if (!storeRef.ok) return invalid(`${field}.find`, storeRef.message);
  return { type: 'find', field: `${field}.find`, find: spec.value, storeRef: storeRef.value };
}

/** An entry's own `sourceRef.storeRef`, else `spec.secretStoreRef`. */
function storeFor(entry: Rec, context: Context): Parsed<StoreRef> {
  const sourceRef = recordField(entry, 'sourceRef');
  if (sourceRef) {
    const own = storeRefOf(sourceRef, 'storeRef');
    if (!own.ok) return fail(`sourceRef.${own.message}`);
    if (own.value) return { ok: true, value: own.value };
  }
  if (context.defaultStore.ok && context.defaultStore.value)
    return { ok: true, value: context.defaultStore.value };
  return fail('no secretStoreRef: set spec.secretStoreRef or sourceRef.storeRef');
}
