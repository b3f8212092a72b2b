import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedSecret } from '../../../infra/local/secrets-manager.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { ManifestDocument } from '../../../lib/secrets/extract.js';
import { type PreflightInput, preflightApp } from '../../../lib/secrets/preflight.js';
import { startTestSecretsManager, type TestSecretsManager } from '../../helpers/secrets-manager.js';

const store = (name: string, aws: Record<string, unknown> = {}) => ({
  path: 'apps/shop/store.yaml',
  doc: {
    apiVersion: 'external-secrets.io/v1',
    kind: 'SecretStore',
    metadata: { name, namespace: 'shop' },
    spec: { provider: { aws: { service: 'SecretsManager', region: 'eu-west-1', ...aws } } },
  },
});

const externalSecret = (
  name: string,
  spec: Record<string, unknown>,
  storeName = 'aws',
): ManifestDocument => ({
  path: `apps/shop/${name}.yaml`,
  doc: {
    apiVersion: 'external-secrets.io/v1',
    kind: 'ExternalSecret',
    metadata: { name, namespace: 'shop' },
    spec: { secretStoreRef: { name: storeName, kind: 'SecretStore' }, ...spec },
  },
});

const data = (remoteRef: Record<string, unknown>, secretKey = 'value') => ({
  data: [{ secretKey, remoteRef }],
});

const seeds: SeedSecret[] = [
  {
    name: 'db',
    string: JSON.stringify({
      password: 'pw',
      nested: { host: 'h' },
      token: null,
      list: [{ x: '1' }, { x: '2' }],
    }),
  },
  { name: 'dotted', string: JSON.stringify({ 'a.b': 'literal', a: { b: null } }) },
  {
    name: 'rotated',
    versions: [
      { versionId: '11111111-1111-4111-8111-111111111111', stages: ['AWSPREVIOUS'], string: '{"old":"1"}' },
      {
        versionId: '22222222-2222-4222-8222-222222222222',
        stages: ['AWSCURRENT'],
        string: '{"current":"1"}',
      },
      { versionId: '33333333-3333-4333-8333-333333333333', stages: ['BLUE'], string: '{"color":"blue"}' },
    ],
  },
  { name: 'both', string: '{"k":"from-string"}', binary: Buffer.from('{"only-binary":"b"}') },
  { name: 'plain', string: 'not json at all' },
  { name: 'denied', string: '{"a":"1"}', access: 'deny' },
  { name: 'kms', string: '{"a":"1"}', kmsDenied: true },
  { name: 'gone', string: '{"a":"1"}', deletedPending: true },
  { name: 'prod/db', string: '{"password":"p"}' },
  { name: 'app/one', string: '{"a":"1"}', tags: { team: 'shop', tier: 'web' } },
  { name: 'app/two', string: '{"a":"1"}', tags: { team: 'shop' } },
  { name: 'other/x', string: '{"a":"1"}', tags: { team: 'web' } },
  { name: 'tagged', string: '{}', tags: { owner: 'alice' } },
  ...Array.from({ length: 25 }, (_, i) => ({ name: `many/${i}`, string: `{"v":"${i}"}` })),
];

describe('preflightApp against the Secrets Manager double through the real SDK client', () => {
  let sm: TestSecretsManager;
  beforeAll(async () => {
    sm = await startTestSecretsManager({ secrets: seeds });
  });
  afterAll(async () => {
    await sm.close();
  });

  const run = (documents: ManifestDocument[], extra: Partial<PreflightInput> = {}) =>
    preflightApp(
      {
        documents: [store('aws'), ...documents],
        clusterStores: [],
        overrides: [],
        policy: 'block',
        namespace: 'shop',
        ...extra,
      },
      { api: sm.api, logger: createMemoryLogger() },
    );
  const since = () => {
    const start = sm.double.requests.length;
    return () => sm.double.requests.slice(start);
  };

  it.each([
    [
      'a missing secret is missing-secret in ESO wording',
      { key: 'nope' },
      'missing-secret',
      'Secret does not exist',
    ],
    [
      'a missing property is missing-property in ESO wording',
      { key: 'db', property: 'user' },
      'missing-property',
      'key user does not exist in secret db',
    ],
    ['a nested property resolves', { key: 'db', property: 'nested.host' }, 'ok', undefined],
    ['an array index resolves', { key: 'db', property: 'list.1.x' }, 'ok', undefined],
    [
      'a property on a payload that is not JSON is not-json',
      { key: 'plain', property: 'a' },
      'not-json',
      'secret plain is not JSON, so property a cannot be read (ESO: key a does not exist in secret plain)',
    ],
    ['an unreadable secret is access-denied', { key: 'denied' }, 'access-denied', undefined],
    [
      'a KMS decrypt denial is access-denied',
      { key: 'kms' },
      'access-denied',
      'KMS decrypt denied (AccessDeniedException): Access to KMS is not allowed',
    ],
    [
      'a secret scheduled for deletion is missing-secret',
      { key: 'gone' },
      'missing-secret',
      'secret is scheduled for deletion (InvalidRequestException)',
    ],
    [
      'a property only in the binary is read from the binary',
      { key: 'both', property: 'only-binary' },
      'ok',
      undefined,
    ],
    [
      'a gjson query is unsupported',
      { key: 'db', property: 'list.#(x=="1").x' },
      'unsupported',
      'property list.#(x=="1").x uses gjson queries (#(…)), which the preflight does not evaluate',
    ],
  ])('%s', async (_name, remoteRef, outcome, message) => {
    const result = await run([externalSecret('es', data(remoteRef))]);
    expect(result.checks).toHaveLength(1);
    expect(result.checks[0]).toMatchObject({
      externalSecret: 'shop/es',
      field: 'spec.data[0]',
      key: remoteRef.key,
      store: 'SecretStore/aws',
      outcome,
    });
    if (message) expect(result.checks[0]?.message).toContain(message);
  });

  it('blocks on a missing property and names the ExternalSecret, key and property', async () => {
    const result = await run([externalSecret('es', data({ key: 'db', property: 'user' }))]);
    expect(result.verdict).toBe('block');
    expect(result.checks[0]).toMatchObject({
      externalSecret: 'shop/es',
      key: 'db',
      property: 'user',
      blocking: true,
    });
    expect(result.summary).toBe('1 ExternalSecret, 1 check: 1 missing-property; blocked by 1 reference');
  });

  it('names the read bound that stopped manifest reading', async () => {
    const result = await run([], {
      limitReached: true,
      limitMessage: 'too many entries: more than 2000 kustomization entries',
    });
    expect(result.checks).toContainEqual(
      expect.objectContaining({
        outcome: 'not-rendered',
        message:
          'manifest reading stopped at its limit (too many entries: more than 2000 kustomization entries); ExternalSecrets beyond it were not checked',
      }),
    );
  });

  it('prefers a literal dotted key over the nested path', async () => {
    const result = await run([externalSecret('es', data({ key: 'dotted', property: 'a.b' }))]);
    // The nested a.b is null (an empty value); only the literal key gives a plain ok.
    expect(result.checks[0]).toMatchObject({ outcome: 'ok' });
    expect(result.checks[0]?.esoGap).toBeUndefined();
  });

  it('records a JSON null property as ok with an empty-value gap', async () => {
    const result = await run([externalSecret('es', data({ key: 'db', property: 'token' }))]);
    expect(result.checks[0]).toMatchObject({ outcome: 'ok', esoGap: 'empty-value' });
    expect(result.verdict).toBe('warn');
  });

  it('sends a uuid/ version as VersionId and no VersionStage', async () => {
    const requests = since();
    const result = await run([
      externalSecret(
        'es',
        data({ key: 'rotated', property: 'old', version: 'uuid/11111111-1111-4111-8111-111111111111' }),
      ),
    ]);
    expect(result.checks[0]?.outcome).toBe('ok');
    expect(requests().map((r) => r.body)).toEqual([
      { SecretId: 'rotated', VersionId: '11111111-1111-4111-8111-111111111111' },
    ]);
  });

  it('sends a custom stage as VersionStage', async () => {
    const requests = since();
    const result = await run([
      externalSecret('es', data({ key: 'rotated', property: 'color', version: 'BLUE' })),
    ]);
    expect(result.checks[0]?.outcome).toBe('ok');
    expect(requests().map((r) => r.body)).toEqual([{ SecretId: 'rotated', VersionStage: 'BLUE' }]);
  });

  it('defaults the version to AWSCURRENT', async () => {
    const requests = since();
    const result = await run([externalSecret('es', data({ key: 'rotated', property: 'old' }))]);
    expect(result.checks[0]?.outcome).toBe('missing-property');
    expect(requests().map((r) => r.body)).toEqual([{ SecretId: 'rotated', VersionStage: 'AWSCURRENT' }]);
  });

  it('prepends the store prefix verbatim', async () => {
    const requests = since();
    const result = await preflightApp(
      {
        documents: [
          store('prefixed', { prefix: 'prod/' }),
          externalSecret('es', data({ key: 'db', property: 'password' }), 'prefixed'),
        ],
        clusterStores: [],
        overrides: [],
        policy: 'block',
        namespace: 'shop',
      },
      { api: sm.api, logger: createMemoryLogger() },
    );
    expect(result.checks[0]?.outcome).toBe('ok');
    expect(requests()[0]?.body).toMatchObject({ SecretId: 'prod/db' });
  });

  it('needs a JSON object for dataFrom.extract', async () => {
    const result = await run([
      externalSecret('es', { dataFrom: [{ extract: { key: 'plain' } }, { extract: { key: 'db' } }] }),
    ]);
    expect(result.checks.map((c) => [c.field, c.outcome, c.message])).toEqual([
      ['spec.dataFrom[0].extract', 'not-json', 'unable to unmarshal secret plain: not a JSON object'],
      ['spec.dataFrom[1].extract', 'ok', '4 keys'],
    ]);
    expect(result.verdict).toBe('block');
  });

  it('records a missing secret under deletionPolicy Delete without blocking, as ESO skips it', async () => {
    const result = await run([
      externalSecret('es', { target: { deletionPolicy: 'Delete' }, ...data({ key: 'nope' }) }),
    ]);
    expect(result.checks[0]).toMatchObject({
      outcome: 'missing-secret',
      blocking: false,
      esoGap: 'skipped-missing',
    });
    expect(result.checks[0]?.message).toContain('ESO skips this entry (deletionPolicy: Delete)');
    expect(result.verdict).toBe('warn');
  });

  it('still blocks a secret scheduled for deletion under deletionPolicy Merge, as ESO fails on it', async () => {
    const result = await run([
      externalSecret('es', { target: { deletionPolicy: 'Merge' }, ...data({ key: 'gone' }) }),
    ]);
    expect(result.checks[0]).toMatchObject({ outcome: 'missing-secret', blocking: true });
  });

  it('reads tags with DescribeSecret for metadataPolicy Fetch', async () => {
    const requests = since();
    const result = await run([
      externalSecret('es', {
        data: [
          { secretKey: 'o', remoteRef: { key: 'tagged', property: 'owner', metadataPolicy: 'Fetch' } },
          { secretKey: 'p', remoteRef: { key: 'tagged', property: 'missing', metadataPolicy: 'Fetch' } },
        ],
      }),
    ]);
    expect(result.checks.map((c) => c.outcome)).toEqual(['ok', 'missing-property']);
    expect(requests().map((r) => r.operation)).toEqual(['DescribeSecret']);
  });

  it('reads many AWSCURRENT keys of one store with BatchGetSecretValue, 20 per call', async () => {
    const requests = since();
    const entries = Array.from({ length: 25 }, (_, i) => ({
      secretKey: `k${i}`,
      remoteRef: { key: `many/${i}`, property: 'v' },
    }));
    const result = await run([externalSecret('es', { data: entries })]);
    expect(result.checks.every((c) => c.outcome === 'ok')).toBe(true);
    const operations = requests().map((r) => r.operation);
    expect(operations).toEqual(['BatchGetSecretValue', 'BatchGetSecretValue']);
    expect(
      requests()
        .map((r) => (r.body.SecretIdList as string[]).length)
        .sort(),
    ).toEqual([20, 5]);
  });

  it('maps each BatchGetSecretValue error to its own reference instead of dropping it', async () => {
    const requests = since();
    const result = await run([
      externalSecret('es', {
        data: [
          { secretKey: 'a', remoteRef: { key: 'db' } },
          { secretKey: 'b', remoteRef: { key: 'nope' } },
          { secretKey: 'c', remoteRef: { key: 'denied' } },
        ],
      }),
    ]);
    expect(result.checks.map((c) => c.outcome)).toEqual(['ok', 'missing-secret', 'access-denied']);
    expect(requests().map((r) => r.operation)).toEqual(['BatchGetSecretValue']);
  });

  it('reads a secret once when several references and ExternalSecrets use it', async () => {
    const requests = since();
    const result = await run([
      externalSecret('one', {
        data: [
          { secretKey: 'a', remoteRef: { key: 'db', property: 'password' } },
          { secretKey: 'b', remoteRef: { key: 'db', property: 'nested' } },
        ],
      }),
      externalSecret('two', data({ key: 'db', property: 'list' })),
    ]);
    expect(result.checks.map((c) => c.outcome)).toEqual(['ok', 'ok', 'ok']);
    expect(requests()).toHaveLength(1);
  });

  it('records a store that is nowhere to be found', async () => {
    const result = await run([externalSecret('es', data({ key: 'db' }), 'missing-store')]);
    expect(result.checks[0]).toMatchObject({
      outcome: 'error',
      message: expect.stringContaining('store SecretStore "missing-store" not found'),
    });
  });

  it('records a ParameterStore store as unsupported without calling AWS', async () => {
    const requests = since();
    const result = await preflightApp(
      {
        documents: [
          store('ps', { service: 'ParameterStore' }),
          externalSecret('es', data({ key: 'db' }), 'ps'),
        ],
        clusterStores: [],
        overrides: [],
        policy: 'block',
        namespace: 'shop',
      },
      { api: sm.api, logger: createMemoryLogger() },
    );
    expect(result.checks[0]?.outcome).toBe('unsupported');
    expect(requests()).toEqual([]);
  });

  it('uses a store read live from the destination cluster', async () => {
    const live = {
      ...store('live').doc,
      metadata: { name: 'live', namespace: 'shop' },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    };
    const result = await preflightApp(
      {
        documents: [externalSecret('es', data({ key: 'db' }), 'live')],
        clusterStores: [live],
        overrides: [],
        policy: 'block',
        namespace: 'shop',
      },
      { api: sm.api, logger: createMemoryLogger() },
    );
    expect(result.checks[0]).toMatchObject({ outcome: 'ok', store: 'SecretStore/live' });
  });
});

describe('dataFrom.find against the double', () => {
  let sm: TestSecretsManager;
  beforeAll(async () => {
    sm = await startTestSecretsManager({ secrets: seeds, pageSize: 2 });
  });
  afterAll(async () => {
    await sm.close();
  });
  const run = (find: Record<string, unknown>) =>
    preflightApp(
      {
        documents: [store('aws'), externalSecret('es', { dataFrom: [{ find }] })],
        clusterStores: [],
        overrides: [],
        policy: 'block',
        namespace: 'shop',
      },
      { api: sm.api, logger: createMemoryLogger() },
    );
  const since = () => {
    const start = sm.double.requests.length;
    return () => sm.double.requests.slice(start);
  };

  it('finds by tags with tag-key and tag-value filters through BatchGetSecretValue', async () => {
    const requests = since();
    const result = await run({ tags: { team: 'shop' } });
    expect(result.checks[0]).toMatchObject({
      outcome: 'ok',
      message: 'find (tags team=shop) matched 2 secrets',
    });
    expect(requests()[0]).toMatchObject({
      operation: 'BatchGetSecretValue',
      body: {
        Filters: [
          { Key: 'tag-key', Values: ['team'] },
          { Key: 'tag-value', Values: ['shop'] },
        ],
      },
    });
  });

  it('blocks a find that matches nothing, noting that ESO would report success', async () => {
    const result = await run({ tags: { team: 'nobody' } });
    expect(result.checks[0]).toMatchObject({
      outcome: 'missing-secret',
      esoGap: 'skipped-missing',
      blocking: true,
    });
    expect(result.verdict).toBe('block');
  });

  it('finds by path and regexp through a name filter, following pagination', async () => {
    const requests = since();
    const result = await run({ path: 'many/', name: { regexp: '^many/1' } });
    // many/1 and many/10..19: eleven names, over pages of two.
    expect(result.checks[0]?.message).toBe('find (name.regexp "^many/1", path "many/") matched 11 secrets');
    expect(requests().length).toBe(13);
    expect(requests()[0]?.body).toMatchObject({ Filters: [{ Key: 'name', Values: ['many/'] }] });
  });

  it('lists every secret for a regexp without a path, then reads each match', async () => {
    const requests = since();
    const result = await run({ name: { regexp: '^app/' } });
    expect(result.checks[0]).toMatchObject({
      outcome: 'ok',
      message: 'find (name.regexp "^app/") matched 2 secrets',
    });
    const operations = new Set(requests().map((r) => r.operation));
    expect(operations).toEqual(new Set(['ListSecrets', 'BatchGetSecretValue']));
  });

  it('fails a listed find on a match it cannot read, as ESO does', async () => {
    const result = await run({ name: { regexp: '^(denied|db)$' } });
    expect(result.checks[0]).toMatchObject({ outcome: 'access-denied', key: 'denied' });
  });

  it('reports a batch find error for a matching secret as its own check', async () => {
    const result = await run({ path: 'de', name: { regexp: 'denied' } });
    expect(result.checks.map((c) => [c.outcome, c.key])).toEqual([
      ['access-denied', 'de'],
      ['access-denied', expect.stringContaining(':secret:denied-')],
    ]);
  });

  it.each([
    ['a Go-invalid regexp is an error', { name: { regexp: '(?=x)' } }, 'error'],
    ['an over-long regexp is unsupported', { name: { regexp: 'a'.repeat(5000) } }, 'unsupported'],
  ])('%s', async (_name, find, outcome) => {
    const requests = since();
    const result = await run(find);
    expect(result.checks[0]?.outcome).toBe(outcome);
    expect(requests()).toEqual([]);
  });
});

describe('policies', () => {
  let sm: TestSecretsManager;
  beforeAll(async () => {
    sm = await startTestSecretsManager({ secrets: seeds, deniedOperations: ['BatchGetSecretValue'] });
  });
  afterAll(async () => {
    await sm.close();
  });
  const documents = [
    store('aws'),
    externalSecret('es', {
      data: [
        { secretKey: 'a', remoteRef: { key: 'nope' } },
        { secretKey: 'b', remoteRef: { key: 'db' } },
      ],
    }),
  ];

  it.each([
    ['block blocks on a missing secret', 'block', 'block', true],
    ['warn records it but never blocks', 'warn', 'warn', false],
  ] as const)('%s', async (_name, policy, verdict, blocking) => {
    const result = await preflightApp(
      { documents, clusterStores: [], overrides: [], policy, namespace: 'shop' },
      { api: sm.api, logger: createMemoryLogger() },
    );
    expect(result.verdict).toBe(verdict);
    expect(result.checks[0]?.blocking).toBe(blocking);
  });

  it('off skips the preflight without a call', async () => {
    const before = sm.double.requests.length;
    const result = await preflightApp(
      { documents, clusterStores: [], overrides: [], policy: 'off' },
      { api: sm.api, logger: createMemoryLogger() },
    );
    expect(result).toEqual({ checks: [], verdict: 'pass', summary: 'secret preflight is off for this app' });
    expect(sm.double.requests.length).toBe(before);
  });

  it('falls back to GetSecretValue per secret when BatchGetSecretValue is denied', async () => {
    const before = sm.double.requests.length;
    const result = await preflightApp(
      { documents, clusterStores: [], overrides: [], policy: 'block', namespace: 'shop' },
      { api: sm.api, logger: createMemoryLogger() },
    );
    expect(result.checks.map((c) => c.outcome)).toEqual(['missing-secret', 'ok']);
    expect(sm.double.requests.slice(before).map((r) => r.operation)).toEqual([
      'BatchGetSecretValue',
      'GetSecretValue',
      'GetSecretValue',
    ]);
  });

  it('records unrendered Helm charts and a reached limit without blocking', async () => {
    const result = await preflightApp(
      {
        documents: [],
        notRendered: ['charts/web'],
        limitReached: true,
        clusterStores: [],
        overrides: [],
        policy: 'block',
      },
      { api: sm.api, logger: createMemoryLogger() },
    );
    expect(result.checks.map((c) => [c.outcome, c.blocking])).toEqual([
      ['not-rendered', false],
      ['not-rendered', false],
    ]);
    expect(result.checks[0]?.message).toContain('charts/web');
    expect(result.verdict).toBe('warn');
  });

  it('passes an app without ExternalSecrets', async () => {
    const result = await preflightApp(
      { documents: [], clusterStores: [], overrides: [], policy: 'block' },
      { api: sm.api, logger: createMemoryLogger() },
    );
    expect(result).toEqual({ checks: [], verdict: 'pass', summary: 'no ExternalSecrets' });
  });
});

describe('dataFrom.find with a store prefix, as ESO reads it', () => {
  let sm: TestSecretsManager;
  beforeAll(async () => {
    sm = await startTestSecretsManager({
      secrets: [
        { name: 'app/one', string: '{}' },
        { name: 'prod/app/one', string: '{}' },
      ],
    });
  });
  afterAll(async () => {
    await sm.close();
  });

  it.each([
    ['reads each listed name with the prefix prepended again', 'Retain', 'ok', undefined],
    [
      'skips a prefixed name that does not exist under deletionPolicy Delete',
      'Delete',
      'missing-secret',
      false,
    ],
  ] as const)('%s', async (_name, deletionPolicy, outcome, blocking) => {
    const regexp = deletionPolicy === 'Retain' ? '^app/' : '^prod/app/';
    const result = await preflightApp(
      {
        documents: [
          store('prefixed', { prefix: 'prod/' }),
          externalSecret(
            'es',
            { target: { deletionPolicy }, dataFrom: [{ find: { name: { regexp } } }] },
            'prefixed',
          ),
        ],
        clusterStores: [],
        overrides: [],
        policy: 'block',
        namespace: 'shop',
      },
      { api: sm.api, logger: createMemoryLogger() },
    );
    expect(result.checks[0]).toMatchObject({ outcome });
    if (blocking !== undefined)
      expect(result.checks[0]).toMatchObject({ blocking, key: 'prod/prod/app/one' });
  });
});
