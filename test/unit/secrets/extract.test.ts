import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { extractFromManifests, type ManifestDocument, readLiveStores } from '../../../lib/secrets/extract.js';

function documents(text: string, path = 'apps/shop/manifest.yaml'): ManifestDocument[] {
  return parseAllDocuments(text).map((d) => ({ path, doc: d.toJS() as unknown }));
}

function es(spec: string, apiVersion = 'external-secrets.io/v1'): string {
  return `apiVersion: ${apiVersion}\nkind: ExternalSecret\nmetadata:\n  name: es\nspec:\n${spec}`;
}

const fixture = readFileSync(new URL('../../fixtures/secrets/full-v1.yaml', import.meta.url), 'utf8');

describe('extractFromManifests on a v1 ExternalSecret using every field', () => {
  const extracted = extractFromManifests(documents(fixture), { defaultNamespace: 'default' });
  const [externalSecret] = extracted.externalSecrets;

  it('reads the ExternalSecret with its namespace, target name and deletion policy', () => {
    expect(externalSecret).toMatchObject({
      id: 'shop/db',
      apiVersion: 'external-secrets.io/v1',
      targetName: 'db-credentials',
      deletionPolicy: 'Merge',
    });
  });

  it('reads data[] remoteRef fields and the default store', () => {
    expect(externalSecret?.references[0]).toEqual({
      type: 'data',
      field: 'spec.data[0]',
      secretKey: 'password',
      storeRef: { kind: 'SecretStore', name: 'aws-sm' },
      remoteRef: {
        key: 'db',
        property: 'password',
        version: 'uuid/0f3c1a2b-0000-4000-8000-000000000001',
        decodingStrategy: 'Base64',
        metadataPolicy: 'None',
        nullBytePolicy: 'Fail',
      },
    });
  });

  it('lets an entry sourceRef.storeRef override spec.secretStoreRef', () => {
    expect(externalSecret?.references[1]).toMatchObject({
      storeRef: { kind: 'ClusterSecretStore', name: 'shared' },
      remoteRef: { key: 'db', property: 'owner', metadataPolicy: 'Fetch', decodingStrategy: 'None' },
    });
  });

  it('reads dataFrom extract and find, and marks generators unsupported', () => {
    expect(externalSecret?.references.slice(2)).toEqual([
      {
        type: 'extract',
        field: 'spec.dataFrom[0].extract',
        storeRef: { kind: 'SecretStore', name: 'aws-sm' },
        remoteRef: {
          key: 'db-config',
          property: 'settings',
          version: 'AWSPREVIOUS',
          decodingStrategy: 'None',
          metadataPolicy: 'None',
          nullBytePolicy: 'Ignore',
        },
      },
      {
        type: 'find',
        field: 'spec.dataFrom[1].find',
        storeRef: { kind: 'SecretStore', name: 'aws-sm' },
        find: { path: 'prod/app/', nameRegexp: '^prod/app/.*', tags: { team: 'shop' } },
      },
      {
        type: 'invalid',
        field: 'spec.dataFrom[2].sourceRef.generatorRef',
        outcome: 'unsupported',
        message: 'generators are not checked by the preflight',
      },
    ]);
  });

  it('reads the SecretStore with every provider.aws field', () => {
    expect(extracted.stores).toEqual([
      {
        kind: 'SecretStore',
        name: 'aws-sm',
        namespace: 'shop',
        conditions: [],
        provider: {
          type: 'aws',
          service: 'SecretsManager',
          region: 'eu-west-1',
          role: 'arn:aws:iam::111111111111:role/eso-reader',
          additionalRoles: ['arn:aws:iam::111111111111:role/hop-1'],
          externalId: 'shop-ext',
          prefix: 'prod/',
          auth: { type: 'jwt', serviceAccount: { name: 'eso' } },
        },
      },
    ]);
  });
});

describe('extractFromManifests defaults and versions', () => {
  it.each([
    ['v1beta1 is read like v1', 'external-secrets.io/v1beta1'],
    ['v1 is read', 'external-secrets.io/v1'],
  ])('%s', (_name, apiVersion) => {
    const spec = '  secretStoreRef: { name: s }\n  data:\n    - secretKey: k\n      remoteRef: { key: a }\n';
    const { externalSecrets } = extractFromManifests(documents(es(spec, apiVersion)), {
      defaultNamespace: 'web',
    });
    expect(externalSecrets[0]).toMatchObject({
      id: 'web/es',
      apiVersion,
      targetName: 'es',
      deletionPolicy: 'Retain',
      references: [
        {
          type: 'data',
          storeRef: { kind: 'SecretStore', name: 's' },
          remoteRef: { key: 'a', metadataPolicy: 'None' },
        },
      ],
    });
  });

  it('ignores nullBytePolicy on v1beta1, which does not have it', () => {
    const spec =
      '  secretStoreRef: { name: s }\n  data:\n    - secretKey: k\n      remoteRef: { key: a, nullBytePolicy: Fail }\n';
    const { externalSecrets } = extractFromManifests(documents(es(spec, 'external-secrets.io/v1beta1')), {
      defaultNamespace: 'web',
    });
    expect(externalSecrets[0]?.references[0]).toMatchObject({ remoteRef: { nullBytePolicy: 'Ignore' } });
  });

  it('records an unread apiVersion as unsupported instead of guessing its layout', () => {
    const { problems, externalSecrets } = extractFromManifests(
      documents(es('  data: []\n', 'external-secrets.io/v1alpha1')),
      { defaultNamespace: 'web' },
    );
    expect(externalSecrets).toEqual([]);
    expect(problems).toEqual([expect.objectContaining({ externalSecret: 'web/es', outcome: 'unsupported' })]);
  });

  it('flattens kind: List documents and skips non-ESO objects, nulls and scalars', () => {
    const text = `apiVersion: v1\nkind: List\nitems:\n  - ${es('  secretStoreRef: { name: s }\n  dataFrom:\n    - extract: { key: x }\n').replaceAll('\n', '\n    ')}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: c }\n---\n---\nplain string\n`;
    const { externalSecrets } = extractFromManifests(documents(text), { defaultNamespace: 'web' });
    expect(externalSecrets.map((e) => e.id)).toEqual(['web/es']);
  });

  it('records a ClusterExternalSecret as unsupported', () => {
    const text =
      'apiVersion: external-secrets.io/v1\nkind: ClusterExternalSecret\nmetadata: { name: all }\nspec: {}\n';
    const { problems } = extractFromManifests(documents(text), { defaultNamespace: 'web' });
    expect(problems).toEqual([
      expect.objectContaining({ externalSecret: '(cluster)/all', outcome: 'unsupported' }),
    ]);
  });
});

describe('extractFromManifests on malformed ExternalSecrets', () => {
  const store = '  secretStoreRef: { name: s }\n';
  it.each([
    [
      'a missing spec is an error',
      'apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: { name: es }\n',
      'spec',
      'spec is missing or not an object',
    ],
    [
      'no data and no dataFrom is an error in ESO wording',
      es(`${store}  data: []\n`),
      'spec',
      'either data or dataFrom should be specified',
    ],
    [
      'data that is not a list is an error',
      es(`${store}  data: { a: 1 }\n`),
      'spec.data',
      'spec.data must be a list',
    ],
    [
      'a data entry that is not an object is an error',
      es(`${store}  data: [ 42 ]\n`),
      'spec.data[0]',
      'spec.data[0] is not an object',
    ],
    [
      'a secretKey outside ^[-._a-zA-Z0-9]+$ is an error',
      es(`${store}  data:\n    - secretKey: "a b"\n      remoteRef: { key: x }\n`),
      'spec.data[0]',
      'spec.data[0].secretKey must match ^[-._a-zA-Z0-9]+$ (at most 253 characters)',
    ],
    [
      'a missing remoteRef.key is an error',
      es(`${store}  data:\n    - secretKey: k\n      remoteRef: { property: p }\n`),
      'spec.data[0]',
      'spec.data[0].remoteRef.key is required and must be a string',
    ],
    [
      'a numeric remoteRef.key is an error, not coerced',
      es(`${store}  data:\n    - secretKey: k\n      remoteRef: { key: 123 }\n`),
      'spec.data[0]',
      'spec.data[0].remoteRef.key is required and must be a string',
    ],
    [
      'an unknown decodingStrategy is an error',
      es(`${store}  data:\n    - secretKey: k\n      remoteRef: { key: x, decodingStrategy: Hex }\n`),
      'spec.data[0]',
      'spec.data[0].remoteRef.decodingStrategy must be one of None, Base64, Base64URL, Auto',
    ],
    [
      'a duplicate secretKey under Retain is an error',
      es(
        `${store}  data:\n    - secretKey: k\n      remoteRef: { key: x }\n    - secretKey: k\n      remoteRef: { key: y }\n`,
      ),
      'spec.data[1]',
      'duplicate secretKey found: k',
    ],
    [
      'a reference without any store is an error',
      es('  data:\n    - secretKey: k\n      remoteRef: { key: x }\n'),
      'spec.data[0]',
      'no secretStoreRef: set spec.secretStoreRef or sourceRef.storeRef',
    ],
    [
      'a store reference without a name is an error',
      es('  secretStoreRef: { kind: SecretStore }\n  dataFrom:\n    - extract: { key: x }\n'),
      'spec.secretStoreRef',
      'secretStoreRef.name is required',
    ],
    [
      'extract and find together are an error in ESO wording',
      es(`${store}  dataFrom:\n    - extract: { key: x }\n      find: { tags: { a: b } }\n`),
      'spec.dataFrom[0]',
      'extract, find, or generatorRef cannot be set at the same time',
    ],
    [
      'an empty dataFrom entry is an error',
      es(`${store}  dataFrom:\n    - rewrite: []\n`),
      'spec.dataFrom[0]',
      'either extract, find, or sourceRef must be set to dataFrom',
    ],
    [
      "a find with neither name nor tags is ESO's unexpected find operator",
      es(`${store}  dataFrom:\n    - find: { path: prod/ }\n`),
      'spec.dataFrom[0].find',
      'unexpected find operator',
    ],
    [
      'find tags that are not strings are an error',
      es(`${store}  dataFrom:\n    - find: { tags: { a: 1 } }\n`),
      'spec.dataFrom[0].find',
      'spec.dataFrom[0].find.tags must map strings to strings',
    ],
    [
      'an unknown deletionPolicy is an error',
      es(`${store}  target: { deletionPolicy: Purge }\n  dataFrom:\n    - extract: { key: x }\n`),
      'spec.target.deletionPolicy',
      'deletionPolicy must be one of Retain, Delete, Merge',
    ],
    [
      'deletionPolicy Delete with creationPolicy Merge is an error',
      es(
        `${store}  target: { deletionPolicy: Delete, creationPolicy: Merge }\n  dataFrom:\n    - extract: { key: x }\n`,
      ),
      'spec.target',
      "deletionPolicy=Delete must not be used when the controller doesn't own the secret. Please set creationPolicy=Owner",
    ],
  ])('%s', (_name, text, field, message) => {
    const { externalSecrets } = extractFromManifests(documents(text), { defaultNamespace: 'web' });
    expect(externalSecrets[0]?.references).toContainEqual(
      expect.objectContaining({ type: 'invalid', outcome: 'error', field, message }),
    );
  });

  it('records an ExternalSecret without a name as an error naming its file', () => {
    const text = 'apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {}\nspec: {}\n';
    const { problems } = extractFromManifests(documents(text, 'apps/x.yaml'), { defaultNamespace: 'web' });
    expect(problems).toEqual([
      {
        externalSecret: 'web/(unnamed)',
        field: 'metadata.name',
        outcome: 'error',
        message: 'ExternalSecret in apps/x.yaml has no metadata.name',
      },
    ]);
  });

  it('never throws on arbitrary shapes', () => {
    const shapes: unknown[] = [
      null,
      1,
      'x',
      [],
      { kind: 'ExternalSecret', apiVersion: 'external-secrets.io/v1', metadata: 'x', spec: [] },
      {
        kind: 'ExternalSecret',
        apiVersion: 'external-secrets.io/v1',
        metadata: { name: 'a' },
        spec: { data: [null, { secretKey: 'k', remoteRef: 'x' }], dataFrom: [{ find: { name: 'x' } }] },
      },
    ];
    expect(() =>
      extractFromManifests(
        shapes.map((doc) => ({ path: 'p', doc })),
        { defaultNamespace: 'd' },
      ),
    ).not.toThrow();
  });
});

describe('stores', () => {
  it.each([
    [
      'a ParameterStore service is kept with its service name',
      'aws:\n      service: ParameterStore\n      region: eu-west-1',
      { type: 'aws', service: 'ParameterStore' },
    ],
    [
      'another provider is kept as other',
      'vault:\n      server: https://vault',
      { type: 'other', name: 'vault' },
    ],
    [
      'an aws provider without service is invalid',
      'aws:\n      region: eu-west-1',
      { type: 'invalid', message: 'spec.provider.aws.service is required' },
    ],
    [
      'two providers are invalid',
      'aws: { service: SecretsManager }\n    vault: {}',
      { type: 'invalid', message: 'spec.provider must name exactly one provider' },
    ],
  ])('%s', (_name, provider, expected) => {
    const text = `apiVersion: external-secrets.io/v1\nkind: ClusterSecretStore\nmetadata: { name: c }\nspec:\n  provider:\n    ${provider}\n`;
    const { stores } = extractFromManifests(documents(text), { defaultNamespace: 'web' });
    expect(stores[0]?.provider).toMatchObject(expected);
  });

  it('reads live stores with their Ready condition and ClusterSecretStore conditions', () => {
    const stores = readLiveStores([
      {
        apiVersion: 'external-secrets.io/v1',
        kind: 'ClusterSecretStore',
        metadata: { name: 'c' },
        spec: {
          provider: { aws: { service: 'SecretsManager', region: 'eu-west-1' } },
          conditions: [{ namespaces: ['a'], namespaceRegexes: ['^team-'] }],
        },
        status: { conditions: [{ type: 'Ready', status: 'False', message: 'unable to validate store' }] },
      },
      { kind: 'Secret', metadata: { name: 'x' } },
      'junk',
    ]);
    expect(stores).toEqual([
      expect.objectContaining({
        kind: 'ClusterSecretStore',
        name: 'c',
        conditions: [{ namespaces: ['a'], namespaceRegexes: ['^team-'], hasSelector: false }],
        ready: { status: false, message: 'unable to validate store' },
      }),
    ]);
  });
});
