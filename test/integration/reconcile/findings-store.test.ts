import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FindingFilter } from '../../../lib/api/findings-reader.js';
import { findingKey } from '../../../lib/audit/lifecycle.js';
import type { Finding, Severity } from '../../../lib/audit/types.js';
import { BadRequestError, UpstreamError } from '../../../lib/errors.js';
import { batchWriteAll } from '../../../lib/store/batch-write.js';
import { GetCommand } from '../../../lib/store/document-client.js';
import { createTableRef, encodeCursor, type TableRef } from '../../../lib/store/dynamo.js';
import { dynamoFindingsStore } from '../../../lib/store/findings.js';
import { FINDINGS_PK } from '../../../lib/store/keys.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

const NOW = new Date('2026-09-01T10:00:00Z');
const DAY = 24 * 3600;

const CLUSTERS = ['hub-a', 'hub-b', 'hub-c'] as const;
const RULES = ['drift', 'degraded', 'missing-finalizer'] as const;
const SEVERITY: Record<(typeof RULES)[number], Severity> = {
  drift: 'medium',
  degraded: 'high',
  'missing-finalizer': 'low',
};

/** 3 clusters × 3 rules × 5 apps; every fifth app's finding is resolved. */
const FINDINGS: Finding[] = CLUSTERS.flatMap((cluster) =>
  RULES.flatMap((rule) =>
    Array.from(
      { length: 5 },
      (_, i): Finding => ({
        rule,
        severity: SEVERITY[rule],
        cluster,
        namespace: 'argocd',
        app: `app-${i}`,
        ...(rule === 'drift' ? { subject: `Deployment/web/app-${i}` } : {}),
        message: `${rule} on app-${i}`,
        evidence: { index: i, nested: { list: ['a', null, 2] }, flag: true },
        firstSeen: '2026-09-01T09:00:00.000Z',
        lastSeen: '2026-09-01T09:55:00.000Z',
        ...(i === 4 ? { resolvedAt: '2026-09-01T09:58:00.000Z' } : {}),
      }),
    ),
  ),
);

describe('the findings store on the single table (dynalite)', () => {
  let dynamo: TestTable;
  let table: TableRef;
  let store: ReturnType<typeof dynamoFindingsStore>;

  beforeAll(async () => {
    dynamo = await startTestTable();
    table = createTableRef({ tableName: dynamo.tableName, region: 'local', endpoint: dynamo.endpoint });
    store = dynamoFindingsStore(table, { clock: { now: () => NOW } });
    await store.write(FINDINGS);
  });
  afterAll(async () => {
    table?.doc.destroy();
    await dynamo?.close();
  });

  const all = async (filter: FindingFilter, limit: number) => {
    const items: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await store.list(filter, { limit, ...(cursor === undefined ? {} : { cursor }) });
      expect(page.items.length).toBeLessThanOrEqual(limit);
      items.push(...page.items);
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < 100);
    return { items, pages };
  };

  it('writes more than one batch of 25 and reads every finding back as it was', async () => {
    const loaded = await store.loadAll();
    expect(loaded).toHaveLength(FINDINGS.length);
    const byKey = new Map(loaded.map((f) => [findingKey(f), f]));
    for (const finding of FINDINGS) expect(byKey.get(findingKey(finding))).toEqual(finding);
  });

  it("loads one cluster's findings alone, and names the clusters findings are on from their keys", async () => {
    const hubB = await store.loadCluster('hub-b');
    expect(hubB.map(findingKey).sort()).toEqual(
      FINDINGS.filter((f) => f.cluster === 'hub-b')
        .map(findingKey)
        .sort(),
    );
    // `hub` is a prefix of every cluster's name but no cluster of its own.
    expect(await store.loadCluster('hub')).toEqual([]);
    expect((await store.storedClusters()).sort()).toEqual([...CLUSTERS]);
  });

  it('loads the open findings apart from the resolved ones', async () => {
    const open = await store.loadOpen();
    expect(open).toHaveLength(36);
    expect(open.every((f) => f.resolvedAt === undefined)).toBe(true);
  });

  it('keys a finding by cluster, rule, namespace, app and subject, and lets only resolved ones expire', async () => {
    const get = async (finding: Finding) =>
      (
        await table.doc.send(
          new GetCommand({ TableName: table.tableName, Key: { pk: FINDINGS_PK, sk: findingKey(finding) } }),
        )
      ).Item;
    const open = FINDINGS.find((f) => f.rule === 'drift' && f.app === 'app-0') as Finding;
    const resolved = FINDINGS.find((f) => f.rule === 'drift' && f.app === 'app-4') as Finding;
    expect((await get(open))?.sk).toBe('hub-a#drift#argocd#app-0#Deployment/web/app-0');
    expect((await get(open))?.expiresAt).toBeUndefined();
    expect((await get(resolved))?.expiresAt).toBe(Date.parse('2026-09-01T09:58:00Z') / 1000 + 30 * DAY);
  });

  it('leaves out a resolved finding whose retention has passed', async () => {
    const later = dynamoFindingsStore(table, {
      clock: { now: () => new Date(NOW.getTime() + 31 * DAY * 1000) },
    });
    expect((await later.loadAll()).filter((f) => f.resolvedAt !== undefined)).toEqual([]);
  });

  it.each<[string, FindingFilter, number]>([
    ['open findings by default', {}, 36],
    ['resolved ones too when asked', { includeResolved: true }, 45],
    ['one cluster (a key range)', { cluster: 'hub-b' }, 12],
    ['one severity', { severity: 'high' }, 12],
    ['one rule on every cluster', { rule: 'drift' }, 12],
    ['one rule on one cluster', { cluster: 'hub-c', rule: 'missing-finalizer', includeResolved: true }, 5],
    ['a severity nothing has', { severity: 'critical' }, 0],
    ['cluster, severity and rule together', { cluster: 'hub-a', severity: 'medium', rule: 'drift' }, 4],
  ])('filters %s', async (_name, filter, expected) => {
    const { items } = await all(filter, 500);
    expect(items).toHaveLength(expected);
    for (const item of items) {
      if (filter.cluster !== undefined) expect(item.cluster).toBe(filter.cluster);
      if (filter.severity !== undefined) expect(item.severity).toBe(filter.severity);
      if (filter.rule !== undefined) expect(item.rule).toBe(filter.rule);
      if (filter.includeResolved !== true) expect(item.status).toBe('open');
    }
  });

  it.each<[string, FindingFilter, number]>([
    ['every finding', { includeResolved: true }, 7],
    ['a filter that skips most items', { severity: 'low' }, 3],
    ['one cluster', { cluster: 'hub-a' }, 4],
  ])('pages through %s with a cursor, each item once', async (_name, filter, limit) => {
    const whole = await all(filter, 500);
    const paged = await all(filter, limit);
    expect(paged.pages).toBeGreaterThan(1);
    const keys = paged.items.map((i) => `${i.cluster}#${i.rule}#${i.app}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.sort()).toEqual(whole.items.map((i) => `${i.cluster}#${i.rule}#${i.app}`).sort());
  });

  it('keeps querying until a page is full when each query finds few matches', async () => {
    const narrow = dynamoFindingsStore(table, { clock: { now: () => NOW }, minEvaluated: 2 });
    const page = await narrow.list({ severity: 'high' }, { limit: 5 });
    expect(page.items).toHaveLength(5);
    expect(page.items.every((i) => i.severity === 'high')).toBe(true);
    const rest = await narrow.list({ severity: 'high' }, { limit: 50, cursor: page.nextCursor as string });
    expect(rest.items).toHaveLength(7);
    expect(rest.nextCursor).toBeUndefined();
  });

  it('serves evidence as the object it was, with the finding fields the API promises', async () => {
    const { items } = await store.list({ cluster: 'hub-a', rule: 'drift' }, { limit: 1 });
    expect(items[0]).toEqual({
      rule: 'drift',
      severity: 'medium',
      cluster: 'hub-a',
      namespace: 'argocd',
      app: 'app-0',
      subject: 'Deployment/web/app-0',
      message: 'drift on app-0',
      evidence: { index: 0, nested: { list: ['a', null, 2] }, flag: true },
      firstSeen: '2026-09-01T09:00:00.000Z',
      lastSeen: '2026-09-01T09:55:00.000Z',
      status: 'open',
    });
  });

  it.each([
    ['a cursor that is not base64 JSON', '!!'],
    ['a cursor of another item kind', encodeCursor({ pk: 'ROLLOUT#abc', sk: '#SUMMARY' }) as string],
    [
      'a cursor outside the filtered cluster',
      encodeCursor({ pk: FINDINGS_PK, sk: 'hub-b#drift#a#b#' }) as string,
    ],
  ])('answers %s as a bad request', async (_name, cursor) => {
    await expect(store.list({ cluster: 'hub-a' }, { limit: 5, cursor })).rejects.toBeInstanceOf(
      BadRequestError,
    );
  });
});

// dynalite never throttles, so it never hands items back unprocessed: a stand-in client does, in-process.
describe('batchWriteAll with items handed back unprocessed', () => {
  type Request = { PutRequest: { Item: { sk: string } } };
  const stubTable = (unprocessedPerCall: number[]) => {
    const calls: Request[][] = [];
    const send = async (command: { input: { RequestItems: Record<string, Request[]> } }) => {
      const items = command.input.RequestItems.t ?? [];
      calls.push(items);
      const back = unprocessedPerCall[calls.length - 1] ?? 0;
      return { UnprocessedItems: back === 0 ? {} : { t: items.slice(0, back) } };
    };
    return { calls, table: { tableName: 't', doc: { send } } as unknown as TableRef };
  };
  const requests = (n: number): Request[] =>
    Array.from({ length: n }, (_, i) => ({ PutRequest: { Item: { sk: `k${i}` } } }));
  const noSleep = { sleep: async () => undefined, concurrency: 1 };

  it('sends 25 at a time and sends what came back again until it is all written', async () => {
    const { calls, table } = stubTable([0, 3, 1, 0]);
    await batchWriteAll(table, requests(30), noSleep);
    expect(calls.map((c) => c.length)).toEqual([25, 5, 3, 1]);
    expect(calls[2]?.map((r) => r.PutRequest.Item.sk)).toEqual(['k25', 'k26', 'k27']);
  });

  it('gives up with a retryable error after a bounded number of tries', async () => {
    const { calls, table } = stubTable([2, 2, 2, 2]);
    await expect(batchWriteAll(table, requests(2), { ...noSleep, attempts: 3 })).rejects.toBeInstanceOf(
      UpstreamError,
    );
    expect(calls).toHaveLength(3);
  });
});
