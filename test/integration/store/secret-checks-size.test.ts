import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleApi } from '../../../lib/api/handle-api.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { AppTarget } from '../../../lib/rollouts/app-model.js';
import type { RolloutMeta } from '../../../lib/rollouts/ports/rollout-writer.js';
import type { SecretCheck } from '../../../lib/secrets/secret-check.js';
import { GetCommand, PutCommand } from '../../../lib/store/document-client.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { appSk, rolloutPk } from '../../../lib/store/keys.js';
import { dynamoRolloutIndex } from '../../../lib/store/rollout-index.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { SECRETS_SHOWN } from '../../../lib/store/secret-chunks.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

const SHA = 'e'.repeat(40);
const META: RolloutMeta = {
  sha: SHA,
  repo: 'org/gitops',
  ref: 'refs/heads/main',
  trigger: 'webhook',
  receivedAt: '2026-12-01T10:00:00.000Z',
};

/** 2,000 realistic checks (about 500 KB of JSON): every 50th a missing secret, the rest fine. */
function manyChecks(tag: string): SecretCheck[] {
  return Array.from({ length: 2000 }, (_, i) => ({
    externalSecret: `payments-prod/${tag}-credentials-${i}`,
    field: `spec.data[${i % 7}]`,
    key: `platform/payments/service-${i}/database-credentials`,
    property: 'password',
    store: 'ClusterSecretStore/aws-secrets-manager',
    outcome: i % 50 === 0 ? 'missing-secret' : 'ok',
    message:
      i % 50 === 0
        ? `secret platform/payments/service-${i}/database-credentials does not exist in the store`
        : '1 key; ExternalSecret found on the destination cluster and synced',
    blocking: false,
    renderedBy: 'argocd',
  }));
}

const app = (i: number): AppTarget => ({
  cluster: 'hub',
  namespace: 'argocd',
  name: `payments-${i}`,
  kind: 'Application',
});

async function itemBytes(ref: TableRef, target: AppTarget): Promise<number> {
  const { Item } = await ref.doc.send(
    new GetCommand({ TableName: ref.tableName, Key: { pk: rolloutPk(SHA), sk: appSk(target) } }),
  );
  return Buffer.byteLength(JSON.stringify(Item), 'utf8');
}

describe('an app with 2,000 ExternalSecret checks, through dynalite', () => {
  let table: TestTable;
  let ref: TableRef;
  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    await dynamoRolloutWriter(ref, 86400).start({ ...META, repoUrl: 'https://github.com/org/gitops' });
  });
  afterAll(async () => table.close());

  it('would not fit one item as it was stored (dynalite enforces the 400 KB limit)', async () => {
    const put = ref.doc.send(
      new PutCommand({
        TableName: ref.tableName,
        Item: { pk: rolloutPk(SHA), sk: 'APP#probe', secrets: manyChecks('probe') },
      }),
    );
    await expect(put).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('records every app of a lease holder batch; the big one keeps a summary, the full list is readable', async () => {
    const writer = dynamoRolloutWriter(ref, 86400);
    const fresh = writer.newApps(META);
    for (let i = 0; i < 25; i++) {
      await fresh.claimApp(META, { ...app(i), state: 'matched', claimedAt: META.receivedAt }, undefined);
      const checks = i === 7 ? manyChecks('batch') : manyChecks('small').slice(0, 2);
      await fresh.transition(SHA, app(i), { state: 'refreshed', secrets: checks }, 1);
    }
    await fresh.flush();

    const reader = dynamoRolloutReader(ref);
    const apps = await reader.listApps(SHA, 'hub');
    expect(apps.filter((a) => a.name.startsWith('payments-'))).toHaveLength(25);
    const big = apps.find((a) => a.name === 'payments-7');
    expect(big?.secretsSummary).toMatchObject({
      total: 2000,
      outcomes: { ok: 1960, 'missing-secret': 40 },
      problems: 40,
      shown: SECRETS_SHOWN,
    });
    expect(big?.secrets).toHaveLength(SECRETS_SHOWN);
    expect(big?.secrets?.every((c) => c.outcome === 'missing-secret')).toBe(true);
    expect(await itemBytes(ref, app(7))).toBeLessThan(100_000);
    const small = apps.find((a) => a.name === 'payments-3');
    expect(small?.secrets).toHaveLength(2);
    expect(small?.secretsSummary).toBeUndefined();

    const full = await reader.secretChecks?.(SHA, app(7));
    expect(full).toEqual(manyChecks('batch'));
  });

  it('bounds a conditional update the same way (an app recorded without a lease)', async () => {
    const writer = dynamoRolloutWriter(ref, 86400);
    const target = app(100);
    const version = await writer.claimApp(
      META,
      { ...target, state: 'matched', claimedAt: META.receivedAt },
      undefined,
    );
    expect(version).toBe(1);
    expect(await writer.transition(SHA, target, { state: 'refreshed', secrets: manyChecks('solo') }, 1)).toBe(
      'updated',
    );
    expect(await itemBytes(ref, target)).toBeLessThan(100_000);
    // A later, short list replaces the summary with the list itself.
    const short = manyChecks('solo').slice(0, 3);
    expect(await writer.transition(SHA, target, { secrets: short }, 2)).toBe('updated');
    const [after] = (await dynamoRolloutReader(ref).listApps(SHA, 'hub')).filter(
      (a) => a.name === 'payments-100',
    );
    expect(after?.secrets).toEqual(short);
    expect(after?.secretsSummary).toBeUndefined();
    expect(await dynamoRolloutReader(ref).secretChecks?.(SHA, target)).toEqual(short);
  });

  it('serves the summary on GET /rollouts/{sha} and the full list on the app secrets route', async () => {
    const deps = {
      rollouts: dynamoRolloutReader(ref),
      index: dynamoRolloutIndex(ref),
      findings: { list: async () => ({ items: [] }) },
      health: async () => ({}),
      logger: createMemoryLogger(),
    };
    const get = async (path: string) => {
      const response = await handleApi(
        { method: 'GET', path, headers: {}, query: {}, pathParameters: {}, body: Buffer.alloc(0) },
        deps,
      );
      return { status: response.statusCode, body: JSON.parse(response.body) };
    };
    const rollout = await get(`/rollouts/${SHA}`);
    expect(rollout.status).toBe(200);
    const big = (rollout.body.apps as { name: string; secretsSummary?: { total: number } }[]).find(
      (a) => a.name === 'payments-7',
    );
    expect(big?.secretsSummary?.total).toBe(2000);
    const full = await get(`/rollouts/${SHA}/apps/hub/argocd/payments-7/secrets`);
    expect(full.status).toBe(200);
    expect(full.body.total).toBe(2000);
    expect(full.body.checks).toEqual(manyChecks('batch'));
    expect((await get(`/rollouts/${SHA}/apps/hub/argocd/nobody/secrets`)).status).toBe(404);
    expect((await get(`/rollouts/${SHA}/apps/hub/Bad_Name/x/secrets`)).status).toBe(400);
  });
});
