import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../lib/errors.js';
import type { AppTarget } from '../../../lib/rollouts/app-model.js';
import type { RolloutMeta } from '../../../lib/rollouts/ports/rollout-writer.js';
import { GetCommand, PutCommand, QueryCommand } from '../../../lib/store/document-client.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { appSk, historyPk, historySk, rolloutPk } from '../../../lib/store/keys.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';
import { webhookMeta } from '../../helpers/rollout-records.js';

const target = (name: string): AppTarget => ({
  cluster: 'spoke',
  namespace: 'argocd',
  name,
  kind: 'Application',
});

let counter = 0;
const meta = (receivedAt: string): RolloutMeta => {
  counter += 1;
  return { ...webhookMeta(counter.toString(16).padStart(40, 'd')), receivedAt };
};

const day = (d: number) => `2026-11-${String(d).padStart(2, '0')}T10:00:00.000Z`;

describe("an app's history on the keys-only index (gsi4), then the records written before it (gsi1)", () => {
  let table: TestTable;
  let ref: TableRef;
  let writer: ReturnType<typeof dynamoRolloutWriter>;
  let reader: ReturnType<typeof dynamoRolloutReader>;

  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    writer = dynamoRolloutWriter(ref, 86_400);
    reader = dynamoRolloutReader(ref);
  });
  afterAll(async () => table.close());

  /** A record as the fan-out writes it now. */
  async function recorded(app: AppTarget, receivedAt: string) {
    const m = meta(receivedAt);
    await writer.start({ ...m, repoUrl: 'https://github.com/org/gitops' });
    await writer.recordApp(m, { ...app, state: 'synced', revision: m.sha });
    return m;
  }

  /** A record as it was written before gsi4: its history keys on gsi1. */
  async function recordedBefore(app: AppTarget, receivedAt: string) {
    const m = meta(receivedAt);
    await ref.doc.send(
      new PutCommand({
        TableName: ref.tableName,
        Item: {
          pk: rolloutPk(m.sha),
          sk: appSk(app),
          type: 'app',
          gsi1pk: historyPk(app),
          gsi1sk: historySk(receivedAt, m.sha),
          ...app,
          sha: m.sha,
          repo: m.repo,
          ref: m.ref,
          trigger: m.trigger,
          receivedAt,
          state: 'synced',
          version: 1,
        },
      }),
    );
    return m;
  }

  async function allPages(app: AppTarget, limit: number) {
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await reader.history(app, { limit, ...(cursor === undefined ? {} : { cursor }) });
      pages.push(page.items.map((h) => h.receivedAt));
      cursor = page.nextCursor;
    } while (cursor !== undefined && pages.length < 10);
    return pages;
  }

  it('puts a new record on gsi4 only, whose entries hold keys and no state (a state change writes none)', async () => {
    const app = target('keys-only');
    const m = await recorded(app, day(20));
    const { Item } = await ref.doc.send(
      new GetCommand({ TableName: ref.tableName, Key: { pk: rolloutPk(m.sha), sk: appSk(app) } }),
    );
    expect(Item).toMatchObject({ gsi4pk: historyPk(app), gsi4sk: historySk(day(20), m.sha) });
    expect(Item).not.toHaveProperty('gsi1pk');
    const { Items } = await ref.doc.send(
      new QueryCommand({
        TableName: ref.tableName,
        IndexName: 'gsi4',
        KeyConditionExpression: 'gsi4pk = :pk',
        ExpressionAttributeValues: { ':pk': historyPk(app) },
      }),
    );
    expect(Items).toEqual([
      { pk: rolloutPk(m.sha), sk: appSk(app), gsi4pk: historyPk(app), gsi4sk: historySk(day(20), m.sha) },
    ]);
    const [entry] = (await reader.history(app, { limit: 5 })).items;
    expect(entry).toMatchObject({ sha: m.sha, state: 'synced', revision: m.sha, receivedAt: day(20) });
  });

  it('serves the new records newest first, then the older ones, across pages of every size', async () => {
    const app = target('upgraded');
    for (const d of [1, 2, 3]) await recordedBefore(app, day(d));
    for (const d of [10, 11]) await recorded(app, day(d));
    const newestFirst = [day(11), day(10), day(3), day(2), day(1)];
    for (const limit of [1, 2, 3, 5, 10]) {
      const pages = await allPages(app, limit);
      expect(pages.flat(), `limit ${limit}`).toEqual(newestFirst);
      expect(
        // Only the last page may be empty (DynamoDB hands back a start key when a page fills exactly).
        pages.every((p, i) => p.length <= limit && (p.length > 0 || i === pages.length - 1)),
        `limit ${limit}`,
      ).toBe(true);
    }
  });

  it('ends a history of new records only with no read of an older record after them', async () => {
    const app = target('fresh');
    for (const d of [5, 6]) await recorded(app, day(d));
    expect(await allPages(app, 2)).toEqual([[day(6), day(5)], []]);
    expect(await allPages(app, 3)).toEqual([[day(6), day(5)]]);
  });

  it('serves records written before gsi4 alone, as before', async () => {
    const app = target('old-only');
    for (const d of [7, 8, 9]) await recordedBefore(app, day(d));
    expect((await allPages(app, 2)).flat()).toEqual([day(9), day(8), day(7)]);
  });

  it("answers a cursor that is not one of the history's as the caller's mistake", async () => {
    await expect(reader.history(target('x'), { limit: 2, cursor: 'bm90LWpzb24' })).rejects.toBeInstanceOf(
      BadRequestError,
    );
    const foreign = Buffer.from(JSON.stringify({ pk: 'X', sk: 'Y', gsi4pk: 'Z' })).toString('base64url');
    await expect(reader.history(target('x'), { limit: 2, cursor: foreign })).rejects.toBeInstanceOf(
      BadRequestError,
    );
  });
});
