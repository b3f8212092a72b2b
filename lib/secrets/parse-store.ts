import type {
  SecretStoreDoc,
  SessionTag,
  StoreAuth,
  StoreCondition,
  StoreKind,
  StoreProvider,
} from './external-secret.js';
import { arrayField, isRecord, type Rec, recordField, stringField } from './read-object.js';

/** A SecretStore/ClusterSecretStore (from Git or read live from a cluster); never throws. */
export function parseSecretStore(
  object: Rec,
  at: { kind: StoreKind; name: string; namespace?: string },
): SecretStoreDoc {
  const spec = recordField(object, 'spec') ?? {};
  const ready = readyOf(object);
  return {
    kind: at.kind,
    name: at.name,
    ...(at.kind === 'SecretStore' && at.namespace !== undefined ? { namespace: at.namespace } : {}),
    provider: providerOf(spec),
    conditions: at.kind === 'ClusterSecretStore' ? conditionsOf(spec) : [],
    ...(ready ? { ready } : {}),
  };
}

function providerOf(spec: Rec): StoreProvider {
  const provider = recordField(spec, 'provider');
  if (!provider) return { type: 'invalid', message: 'spec.provider is missing or not an object' };
  const names = Object.keys(provider).filter((k) => provider[k] !== undefined && provider[k] !== null);
  if (names.length !== 1) return { type: 'invalid', message: 'spec.provider must name exactly one provider' };
  const [name = ''] = names;
  if (name !== 'aws') return { type: 'other', name };
  const aws = recordField(provider, 'aws');
  if (!aws) return { type: 'invalid', message: 'spec.provider.aws must be an object' };
  const service = stringField(aws, 'service');
  if (typeof service !== 'string' || service === '') {
    return { type: 'invalid', message: 'spec.provider.aws.service is required' };
  }
  const region = stringField(aws, 'region');
  const role = stringField(aws, 'role');
  const externalId = stringField(aws, 'externalID');
  const prefix = stringField(aws, 'prefix');
  const additional = arrayField(aws, 'additionalRoles') ?? [];
  if (additional === null || additional.some((r) => typeof r !== 'string')) {
    return { type: 'invalid', message: 'spec.provider.aws.additionalRoles must be a list of role ARNs' };
  }
  if ([region, role, externalId, prefix].includes(null)) {
    return {
      type: 'invalid',
      message: 'spec.provider.aws region, role, externalID and prefix must be strings',
    };
  }
  const auth = authOf(recordField(aws, 'auth') ?? {});
  if ('message' in auth) return { type: 'invalid', message: auth.message };
  const tags = sessionTagsOf(aws);
  if (tags === null)
    return { type: 'invalid', message: 'spec.provider.aws.sessionTags must be a list of {key, value}' };
  const transitive = strings(arrayField(aws, 'transitiveTagKeys'));
  return {
    type: 'aws',
    service,
    ...(region ? { region } : {}),
    ...(role ? { role } : {}),
    additionalRoles: additional as string[],
    ...(externalId ? { externalId } : {}),
    ...(tags.length > 0 ? { sessionTags: tags } : {}),
    ...(transitive.length > 0 ? { transitiveTagKeys: transitive } : {}),
    prefix: prefix ?? '',
    auth,
  };
}

function authOf(auth: Rec): StoreAuth | { message: string } {
  const jwt = recordField(auth, 'jwt');
  if (jwt) {
    const ref = recordField(jwt, 'serviceAccountRef');
    const name = ref ? stringField(ref, 'name') : undefined;
    const namespace = ref ? stringField(ref, 'namespace') : undefined;
    if (typeof name !== 'string' || name === '' || namespace === null)
      return { message: 'spec.provider.aws.auth.jwt.serviceAccountRef.name is required' };
    return { type: 'jwt', serviceAccount: { name, ...(namespace ? { namespace } : {}) } };
  }
  return recordField(auth, 'secretRef') ? { type: 'secretRef' } : { type: 'default' };
}

function sessionTagsOf(aws: Rec): SessionTag[] | null {
  const tags = arrayField(aws, 'sessionTags') ?? [];
  if (tags === null) return null;
  const out: SessionTag[] = [];
  for (const tag of tags) {
    if (!isRecord(tag) || typeof tag.key !== 'string' || typeof tag.value !== 'string') return null;
    out.push({ key: tag.key, value: tag.value });
  }
  return out;
}

function conditionsOf(spec: Rec): StoreCondition[] {
  const conditions = arrayField(spec, 'conditions') ?? [];
  return conditions.filter(isRecord).map((c) => ({
    namespaces: strings(arrayField(c, 'namespaces')),
    namespaceRegexes: strings(arrayField(c, 'namespaceRegexes')),
    hasSelector: recordField(c, 'namespaceSelector') !== undefined,
  }));
}

function strings(values: readonly unknown[] | undefined | null): string[] {
  return (values ?? []).filter((v): v is string => typeof v === 'string');
}

function readyOf(object: Rec): SecretStoreDoc['ready'] {
  const status = recordField(object, 'status');
  const conditions = status ? (arrayField(status, 'conditions') ?? []) : [];
  const ready = conditions.filter(isRecord).find((c) => c.type === 'Ready');
  if (!ready) return undefined;
  const message = stringField(ready, 'message');
  return { status: ready.status === 'True', ...(typeof message === 'string' ? { message } : {}) };
}
