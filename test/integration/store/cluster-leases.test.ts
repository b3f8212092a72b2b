import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoClusterLeases } from '../../../lib/store/cluster-leases.js';
import { createTableRef } from '../../../lib/store/dynamo.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

describe('the per-commit, per-cluster work lease', () => {
  let table: TestTable;
  let leases: ReturnType<typeof dynamoClusterLeases>;
  const sha = 'a'.repeat(40);

  beforeAll(async () => {
    table = await startTestTable();
    leases = dynamoClusterLeases(
      createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint }),
      86_400,
    );
  });
  afterAll(async () => table.close());

  it('is held by one work item at a time, and names when the held one runs out', async () => {
    const until = Date.now() + 60_000;
    const [a, b] = await Promise.all([
      leases.acquire(sha, 'hub', 'one', until),
      leases.acquire(sha, 'hub', 'two', until),
    ]);
    expect([a.held, b.held].sort()).toEqual([false, true]);
    const loser = a.held ? b : a;
    expect(loser.held === false && loser.untilMs).toBe(until);
    // Another cluster of the same commit is free.
    expect((await leases.acquire(sha, 'spoke', 'three', until)).held).toBe(true);
  });

  it('is free again once released, but only by its holder', async () => {
    const until = Date.now() + 60_000;
    expect((await leases.acquire(sha, 'edge', 'one', until)).held).toBe(true);
    await leases.release(sha, 'edge', 'someone-else');
    expect((await leases.acquire(sha, 'edge', 'two', until)).held).toBe(false);
    await leases.release(sha, 'edge', 'one');
    expect((await leases.acquire(sha, 'edge', 'two', until)).held).toBe(true);
  });

  it('is taken over once the holder ran out of time without releasing it', async () => {
    expect((await leases.acquire(sha, 'lost', 'crashed', Date.now() - 1)).held).toBe(true);
    expect((await leases.acquire(sha, 'lost', 'next', Date.now() + 60_000)).held).toBe(true);
  });

  it('tells its first holder that no one held it before, and keeps the item as long as asked', async () => {
    const first = await leases.acquire(sha, 'fresh', 'one', Date.now() + 60_000);
    expect(first).toMatchObject({ held: true, first: true });
    // Kept for keepSeconds (86,400 here) from now, not only a day past `until`.
    const now = Math.floor(Date.now() / 1000);
    expect(first.held && first.expiresAt).toBeGreaterThanOrEqual(now + 86_400);
    await leases.release(sha, 'fresh', 'one');
    // Released (or run out): the next holder is not the first, records of the first may be there.
    expect(await leases.acquire(sha, 'fresh', 'two', Date.now() + 60_000)).toMatchObject({
      held: true,
      first: false,
    });
    expect((await leases.acquire(sha, 'gone', 'crashed', Date.now() - 1)).held).toBe(true);
    expect(await leases.acquire(sha, 'gone', 'next', Date.now() + 60_000)).toMatchObject({ first: false });
  });
});
