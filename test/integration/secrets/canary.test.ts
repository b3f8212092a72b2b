import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { ManifestDocument } from '../../../lib/secrets/extract.js';
import { recordPostSync } from '../../../lib/secrets/post-sync.js';
import { preflightApp } from '../../../lib/secrets/preflight.js';
import { startTestSecretsManager, type TestSecretsManager } from '../../helpers/secrets-manager.js';

const CANARY = 'CANARY-9f2c71d4-do-not-leak';
const variants = [CANARY, Buffer.from(CANARY).toString('base64'), JSON.stringify(CANARY).slice(1, -1)];

describe('no secret value leaves the preflight', () => {
  let sm: TestSecretsManager;
  beforeAll(async () => {
    sm = await startTestSecretsManager({
      secrets: [
        { name: 'plain', string: CANARY },
        {
          name: 'json',
          string: JSON.stringify({ password: CANARY, nested: { token: CANARY }, list: [CANARY] }),
        },
        { name: 'binary', binary: Buffer.from(JSON.stringify({ key: CANARY })) },
        { name: 'not-base64', string: JSON.stringify({ value: `${CANARY}!!` }) },
        { name: 'nul', string: JSON.stringify({ value: `${CANARY}\u0000` }) },
        {
          name: 'versioned',
          versions: [
            { stages: ['AWSCURRENT'], string: CANARY },
            { stages: ['AWSPREVIOUS'], string: `{"old":"${CANARY}"}` },
          ],
        },
        { name: 'tagged', string: CANARY, tags: { owner: CANARY.toLowerCase().replaceAll('-', '_') } },
        ...Array.from({ length: 3 }, (_, i) => ({
          name: `found/${i}`,
          string: CANARY,
          tags: { kind: 'canary' },
        })),
      ],
    });
  });
  afterAll(async () => {
    await sm.close();
  });

  it('appears in no SecretCheck, summary, post-sync record or log line after a full resolution', async () => {
    const logger = createMemoryLogger();
    const documents: ManifestDocument[] = [
      {
        path: 'store.yaml',
        doc: {
          apiVersion: 'external-secrets.io/v1',
          kind: 'SecretStore',
          metadata: { name: 'aws', namespace: 'ns' },
          spec: { provider: { aws: { service: 'SecretsManager', region: 'eu-west-1' } } },
        },
      },
      {
        path: 'es.yaml',
        doc: {
          apiVersion: 'external-secrets.io/v1',
          kind: 'ExternalSecret',
          metadata: { name: 'es', namespace: 'ns' },
          spec: {
            secretStoreRef: { name: 'aws' },
            data: [
              { secretKey: 'a', remoteRef: { key: 'plain' } },
              { secretKey: 'b', remoteRef: { key: 'plain', property: 'x' } },
              { secretKey: 'c', remoteRef: { key: 'json', property: 'password' } },
              { secretKey: 'd', remoteRef: { key: 'json', property: 'nested' } },
              { secretKey: 'e', remoteRef: { key: 'json', property: 'missing' } },
              { secretKey: 'f', remoteRef: { key: 'binary', property: 'key' } },
              {
                secretKey: 'g',
                remoteRef: { key: 'json', property: 'password', decodingStrategy: 'Base64' },
              },
              { secretKey: 'h', remoteRef: { key: 'nul', property: 'value', nullBytePolicy: 'Fail' } },
              { secretKey: 'i', remoteRef: { key: 'versioned', version: 'AWSPREVIOUS', property: 'old' } },
              { secretKey: 'j', remoteRef: { key: 'tagged', property: 'owner', metadataPolicy: 'Fetch' } },
              { secretKey: 'k', remoteRef: { key: 'json', property: 'list.#(=="x")' } },
            ],
            dataFrom: [
              { extract: { key: 'plain' } },
              { extract: { key: 'json' } },
              { extract: { key: 'not-base64', decodingStrategy: 'Base64' } },
              { find: { tags: { kind: 'canary' } } },
              { find: { name: { regexp: '^found/' } } },
            ],
          },
        },
      },
    ];
    const result = await preflightApp(
      { documents, clusterStores: [], overrides: [], policy: 'block', namespace: 'ns' },
      { api: sm.api, logger },
    );
    const postSync = recordPostSync({
      live: [
        {
          apiVersion: 'external-secrets.io/v1',
          kind: 'ExternalSecret',
          metadata: { name: 'es', namespace: 'ns' },
          status: { conditions: [{ type: 'Ready', status: 'True', reason: 'SecretSynced' }] },
        },
      ],
      preflight: result.checks,
    });
    // The resolution did reach the values: every outcome below needs them.
    expect(result.checks.map((c) => c.outcome)).toEqual([
      'ok',
      'not-json',
      'ok',
      'ok',
      'missing-property',
      'ok',
      'error',
      'error',
      'ok',
      'ok',
      'unsupported',
      'not-json',
      'ok',
      'error',
      'ok',
      'ok',
    ]);
    const everything = JSON.stringify({ result, postSync, lines: logger.lines });
    for (const variant of variants) expect(everything).not.toContain(variant);
  });

  it('appears in no error thrown by the adapter', async () => {
    const errors: unknown[] = [];
    await sm.api
      .getSecretValue({ region: 'eu-west-1', secretId: 'plain', versionStage: 'NOPE' })
      .catch((e: unknown) => errors.push(e));
    await sm.api
      .getSecretValue({ region: 'eu-west-1', secretId: 'nothing' })
      .catch((e: unknown) => errors.push(e));
    expect(errors).toHaveLength(2);
    const text = errors.map((e) => `${String(e)} ${JSON.stringify(e)} ${(e as Error).stack}`).join('\n');
    for (const variant of variants) expect(text).not.toContain(variant);
  });

  it('stays hidden when a fetched payload itself is serialized or inspected', async () => {
    const { inspect } = await import('node:util');
    const fetched = await sm.api.getSecretValue({
      region: 'eu-west-1',
      secretId: 'plain',
      versionStage: 'AWSCURRENT',
    });
    const text = `${JSON.stringify(fetched)} ${inspect(fetched, { depth: 10 })} ${String(fetched.payload)}`;
    for (const variant of variants) expect(text).not.toContain(variant);
    expect(fetched.payload.plain()).toBe(CANARY);
  });
});
