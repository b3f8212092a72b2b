import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FreezeStore } from '../../../lib/release/ports.js';
import type { Freeze } from '../../../lib/rollouts/rollout-model.js';
import { GetCommand } from '../../../lib/store/document-client.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { dynamoFreezeStore } from '../../../lib/store/freezes.js';
import { FREEZES_PK, freezeSk } from '../../../lib/store/keys.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

const NOW = new Date('2026-12-01T12:00:00.000Z');
const freeze = (id: string, extra: Partial<Freeze> = {}): Freeze => ({
  id,
  reason: 'change freeze',
  by: 'arn:aws:iam::123456789012:user/ops',
  at: '2026-12-01T11:00:00.000Z',
  ...extra,
});

describe('freezes (dynalite)', () => {
  let table: TestTable;
  let ref: TableRef;
  let store: FreezeStore;

  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    store = dynamoFreezeStore(ref);
  });
  afterAll(async () => table.close());

  it('lists the freezes in force, leaving ended ones out', async () => {
    await store.create(freeze('open-ended', { repo: 'github.com/org/gitops' }));
    await store.create(freeze('until-tonight', { cluster: 'prod-*', until: '2026-12-01T20:00:00.000Z' }));
    await store.create(freeze('ended', { until: '2026-12-01T11:59:59.000Z' }));
    const ids = (await store.list(NOW)).map((f) => f.id).sort();
    expect(ids).toEqual(['open-ended', 'until-tonight']);
    expect((await store.list(new Date('2026-12-01T21:00:00.000Z'))).map((f) => f.id)).toEqual(['open-ended']);
    expect((await store.list(NOW)).find((f) => f.id === 'until-tonight')).toEqual(
      freeze('until-tonight', { cluster: 'prod-*', until: '2026-12-01T20:00:00.000Z' }),
    );
  });

  it('gives a freeze with an end a TTL after it, and none to an open-ended one', async () => {
    const get = async (id: string) =>
      (
        await ref.doc.send(
          new GetCommand({ TableName: ref.tableName, Key: { pk: FREEZES_PK, sk: freezeSk(id) } }),
        )
      ).Item;
    expect((await get('until-tonight'))?.expiresAt).toBeGreaterThan(
      Date.parse('2026-12-01T20:00:00.000Z') / 1000,
    );
    expect((await get('open-ended'))?.expiresAt).toBeUndefined();
  });

  it('never overwrites a freeze with the same id', async () => {
    await store.create(freeze('twice'));
    await expect(store.create(freeze('twice', { reason: 'other' }))).rejects.toThrow();
    expect((await store.list(NOW)).find((f) => f.id === 'twice')?.reason).toBe('change freeze');
  });

  it('removes a freeze once; false for an unknown one', async () => {
    await store.create(freeze('lift-me'));
    expect(await store.remove('lift-me')).toBe(true);
    expect(await store.remove('lift-me')).toBe(false);
    expect((await store.list(NOW)).map((f) => f.id)).not.toContain('lift-me');
  });
});
