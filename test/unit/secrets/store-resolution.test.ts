import { describe, expect, it } from 'vitest';
import type { StoreOverride } from '../../../lib/fleet/fleet-config.js';
import type { SecretStoreDoc } from '../../../lib/secrets/external-secret.js';
import { resolveStore, type StoreSources } from '../../../lib/secrets/store-resolution.js';

const aws = (region: string, extra: Partial<SecretStoreDoc['provider']> = {}): SecretStoreDoc['provider'] =>
  ({
    type: 'aws',
    service: 'SecretsManager',
    region,
    additionalRoles: [],
    prefix: '',
    auth: { type: 'default' },
    ...extra,
  }) as SecretStoreDoc['provider'];

const store = (doc: Partial<SecretStoreDoc> & Pick<SecretStoreDoc, 'kind' | 'name'>): SecretStoreDoc => ({
  provider: aws('eu-west-1'),
  conditions: [],
  ...doc,
});

const none: StoreSources = { manifests: [], cluster: [], overrides: [] };

describe('resolveStore looks in the manifests, then the cluster, then the fleet file', () => {
  const inGit = store({
    kind: 'SecretStore',
    name: 's',
    namespace: 'shop',
    provider: aws('eu-west-1', { prefix: 'git/' }),
  });
  const onCluster = store({
    kind: 'SecretStore',
    name: 's',
    namespace: 'shop',
    provider: aws('eu-central-1'),
  });
  const override: StoreOverride = {
    kind: 'SecretStore',
    name: 's',
    service: 'SecretsManager',
    region: 'us-east-1',
    role: 'arn:aws:iam::1:role/r',
    prefix: 'fleet/',
  };

  it.each([
    [
      'the manifests win over the cluster and the fleet file',
      { manifests: [inGit], cluster: [onCluster], overrides: [override] },
      'manifests',
      'eu-west-1',
    ],
    [
      'the cluster wins over the fleet file',
      { manifests: [], cluster: [onCluster], overrides: [override] },
      'cluster',
      'eu-central-1',
    ],
    [
      'the fleet file is the last resort',
      { manifests: [], cluster: [], overrides: [override] },
      'fleet',
      'us-east-1',
    ],
  ])('%s', (_name, sources, source, region) => {
    const resolution = resolveStore({ kind: 'SecretStore', name: 's' }, 'shop', sources);
    expect(resolution).toMatchObject({ ok: true, store: { source, target: { region } } });
  });

  it('carries role, additional roles, external id and prefix into the target', () => {
    const doc = store({
      kind: 'ClusterSecretStore',
      name: 'c',
      provider: aws('eu-west-1', {
        role: 'arn:r',
        additionalRoles: ['arn:a'],
        externalId: 'x',
        prefix: 'p/',
      } as never),
    });
    expect(
      resolveStore({ kind: 'ClusterSecretStore', name: 'c' }, 'any', { ...none, manifests: [doc] }),
    ).toEqual({
      ok: true,
      store: {
        kind: 'ClusterSecretStore',
        name: 'c',
        source: 'manifests',
        prefix: 'p/',
        target: { region: 'eu-west-1', role: 'arn:r', additionalRoles: ['arn:a'], externalId: 'x' },
        identity: { type: 'controller' },
      },
    });
  });
});

describe('resolveStore names the identity ESO would start from', () => {
  const jwt = (namespace?: string) =>
    ({
      type: 'jwt',
      serviceAccount: { name: 'eso', ...(namespace === undefined ? {} : { namespace }) },
    }) as const;
  it.each([
    [
      'a SecretStore reads its ServiceAccount in the ExternalSecret namespace',
      'SecretStore',
      jwt('ignored'),
      { type: 'service-account', name: 'eso', namespace: 'shop' },
    ],
    [
      'a ClusterSecretStore reads the namespace its ref names',
      'ClusterSecretStore',
      jwt('eso-system'),
      { type: 'service-account', name: 'eso', namespace: 'eso-system' },
    ],
    [
      'a ClusterSecretStore ref without a namespace reads the ExternalSecret namespace',
      'ClusterSecretStore',
      jwt(),
      { type: 'service-account', name: 'eso', namespace: 'shop' },
    ],
    ['auth.secretRef is static keys', 'SecretStore', { type: 'secretRef' }, { type: 'static-keys' }],
    ['no auth is the controller identity', 'SecretStore', { type: 'default' }, { type: 'controller' }],
  ] as const)('%s', (_name, kind, auth, identity) => {
    const doc = store({ kind, name: 's', namespace: 'shop', provider: aws('eu-west-1', { auth } as never) });
    const resolution = resolveStore({ kind, name: 's' }, 'shop', {
      ...none,
      manifests: [doc],
      clusterName: 'spoke',
    });
    expect(resolution).toMatchObject({ ok: true, store: { identity, cluster: 'spoke' } });
  });
});

describe('resolveStore refusals', () => {
  it.each([
    [
      'a SecretStore in another namespace is not found',
      [store({ kind: 'SecretStore', name: 's', namespace: 'other' })],
      'error',
      'store SecretStore "s" not found (looked in the manifests, on the destination cluster and in the fleet file)',
    ],
    [
      'ParameterStore is unsupported',
      [
        store({
          kind: 'SecretStore',
          name: 's',
          namespace: 'shop',
          provider: aws('eu-west-1', { service: 'ParameterStore' } as never),
        }),
      ],
      'unsupported',
      'SecretStore "s" uses aws ParameterStore; only SecretsManager is resolved',
    ],
    [
      'another provider is unsupported',
      [
        store({
          kind: 'SecretStore',
          name: 's',
          namespace: 'shop',
          provider: { type: 'other', name: 'vault' },
        }),
      ],
      'unsupported',
      'SecretStore "s" uses provider vault; only aws SecretsManager is resolved',
    ],
    [
      'a store without region is an error',
      [
        store({
          kind: 'SecretStore',
          name: 's',
          namespace: 'shop',
          provider: {
            type: 'aws',
            service: 'SecretsManager',
            additionalRoles: [],
            prefix: '',
            auth: { type: 'default' },
          },
        }),
      ],
      'error',
      'SecretStore "s" has no spec.provider.aws.region',
    ],
    [
      "a store that is not Ready is refused, as ESO's flood gate does",
      [store({ kind: 'SecretStore', name: 's', namespace: 'shop', ready: { status: false } })],
      'error',
      'SecretStore "s" is not ready',
    ],
  ])('%s', (_name, cluster, outcome, message) => {
    expect(resolveStore({ kind: 'SecretStore', name: 's' }, 'shop', { ...none, cluster })).toEqual({
      ok: false,
      outcome,
      message,
    });
  });

  it('a fleet override for ParameterStore is unsupported', () => {
    const overrides: StoreOverride[] = [
      { kind: 'ClusterSecretStore', name: 'c', service: 'ParameterStore', region: 'eu-west-1' },
    ];
    expect(
      resolveStore({ kind: 'ClusterSecretStore', name: 'c' }, 'shop', { ...none, overrides }),
    ).toMatchObject({ ok: false, outcome: 'unsupported' });
  });

  it.each([
    ['an override scoped to another cluster is skipped', { cluster: 'spoke-b' }, false],
    ['an override scoped to this cluster is used', { cluster: 'spoke-a' }, true],
    ['an override scoped to another namespace is skipped', { namespace: 'other' }, false],
  ])('%s', (_name, scope, ok) => {
    const overrides: StoreOverride[] = [
      { kind: 'SecretStore', name: 's', service: 'SecretsManager', region: 'eu-west-1', ...scope },
    ];
    expect(
      resolveStore({ kind: 'SecretStore', name: 's' }, 'shop', { ...none, overrides, clusterName: 'spoke-a' })
        .ok,
    ).toBe(ok);
  });
});

describe('ClusterSecretStore conditions', () => {
  const conditioned = (condition: SecretStoreDoc['conditions'][number]) =>
    store({ kind: 'ClusterSecretStore', name: 'c', conditions: [condition] });

  it.each([
    [
      'a listed namespace is allowed',
      { namespaces: ['shop'], namespaceRegexes: [], hasSelector: false },
      true,
    ],
    [
      'a namespace matching a Go regexp is allowed',
      { namespaces: [], namespaceRegexes: ['^sh'], hasSelector: false },
      true,
    ],
    [
      'an unlisted namespace is denied',
      { namespaces: ['web'], namespaceRegexes: ['^team-'], hasSelector: false },
      false,
    ],
    [
      'a namespaceSelector cannot be evaluated and is assumed to allow',
      { namespaces: [], namespaceRegexes: [], hasSelector: true },
      true,
    ],
  ])('%s', (_name, condition, ok) => {
    const resolution = resolveStore({ kind: 'ClusterSecretStore', name: 'c' }, 'shop', {
      ...none,
      cluster: [conditioned(condition)],
    });
    expect(resolution.ok).toBe(ok);
    if (!resolution.ok)
      expect(resolution.message).toBe(
        'using cluster store "c" is not allowed from namespace "shop": denied by spec.condition',
      );
  });
});
