import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleApi } from '../../../lib/api/handle-api.js';
import type { HttpRequest } from '../../../lib/http/request.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { GetCommand, PutCommand } from '../../../lib/store/document-client.js';
import { createTableRef } from '../../../lib/store/dynamo.js';
import { LISTING_SK, rolloutPk, SUMMARY_SK, summaryIndexFields } from '../../../lib/store/keys.js';
import { dynamoRolloutIndex } from '../../../lib/store/rollout-index.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { putListing } from '../../../lib/store/rollout-listing.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

const get = (path: string, query: Record<string, string> = {}): HttpRequest => ({
  method: 'GET',
  path,
  query,
  headers: {},
  pathParameters: {},
  body: Buffer.alloc(0),
});

type Api = (request: HttpRequest) => Promise<{ status: number; body: Record<string, unknown> }>;

/** The API's read routes over the table, answers parsed. */
function apiOver(ref: ReturnType<typeof createTableRef>): Api {
  const deps = {
    rollouts: dynamoRolloutReader(ref),
    index: dynamoRolloutIndex(ref),
    findings: { list: async () => ({ items: [] }) },
    health: async () => ({}),
    logger: createMemoryLogger(),
  };
  return async (request) => {
    const response = await handleApi(request, deps);
    return { status: response.statusCode, body: JSON.parse(response.body) };
  };
}

/** Seven rollouts over two repositories, one minute apart; two of them share the prefix `beef123`. */
const ROLLOUTS = [
  { sha: `beef1230${'1'.repeat(32)}`, repo: 'org/gitops', ref: 'refs/heads/main' },
  { sha: `beef1231${'2'.repeat(32)}`, repo: 'org/gitops', ref: 'refs/heads/main' },
  { sha: `a1${'3'.repeat(38)}`, repo: 'org/other', ref: 'refs/heads/main' },
  { sha: `a2${'4'.repeat(38)}`, repo: 'org/gitops', ref: 'refs/tags/v1.0.0' },
  { sha: `a3${'5'.repeat(38)}`, repo: 'org/gitops', ref: 'refs/heads/release' },
  { sha: `a4${'6'.repeat(38)}`, repo: 'org/other', ref: 'refs/heads/main' },
  { sha: `a5${'7'.repeat(38)}`, repo: 'org/gitops', ref: 'refs/heads/main' },
].map((r, i) => ({ ...r, receivedAt: new Date(Date.UTC(2026, 10, 30, 10, i)).toISOString() }));

describe('listing rollouts and short SHAs through the API against dynalite', () => {
  let table: TestTable;
  let api: Api;

  beforeAll(async () => {
    table = await startTestTable();
    const ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    const writer = dynamoRolloutWriter(ref, 86400);
    for (const r of ROLLOUTS) {
      await writer.start({ ...r, repoUrl: `https://github.com/${r.repo}`, trigger: 'webhook' });
    }
    api = apiOver(ref);
  });
  afterAll(async () => table.close());

  const shas = (body: Record<string, unknown>) => (body.items as { sha: string }[]).map((i) => i.sha);
  const newestFirst = (filter: (r: (typeof ROLLOUTS)[number]) => boolean) =>
    ROLLOUTS.filter(filter)
      .map((r) => r.sha)
      .reverse();

  it('lists every rollout newest first, page by page, without repeats or gaps', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { status, body } = await api(get('/rollouts', { limit: '3', ...(cursor ? { cursor } : {}) }));
      expect(status).toBe(200);
      seen.push(...shas(body));
      cursor = body.cursor as string | undefined;
      pages += 1;
    } while (cursor !== undefined && pages < 10);
    expect(seen).toEqual(newestFirst(() => true));
  });

  it('filters by repository', async () => {
    const { body } = await api(get('/rollouts', { repo: 'org/other' }));
    expect(shas(body)).toEqual(newestFirst((r) => r.repo === 'org/other'));
    expect(body.cursor).toBeUndefined();
  });

  it('filters by repository and ref, a bare name matching the branch and pages across the filter', async () => {
    const first = await api(get('/rollouts', { repo: 'org/gitops', ref: 'main', limit: '2' }));
    const second = await api(
      get('/rollouts', { repo: 'org/gitops', ref: 'main', limit: '2', cursor: String(first.body.cursor) }),
    );
    const wanted = newestFirst((r) => r.repo === 'org/gitops' && r.ref === 'refs/heads/main');
    expect([...shas(first.body), ...shas(second.body)]).toEqual(wanted);
    const tags = await api(get('/rollouts', { ref: 'refs/tags/v1.0.0' }));
    expect(shas(tags.body)).toEqual(newestFirst((r) => r.ref === 'refs/tags/v1.0.0'));
  });

  it('answers 400, never 5xx, to a cursor that does not belong to the list', async () => {
    const other = await api(get('/rollouts', { repo: 'org/other', limit: '1' }));
    const crossed = await api(get('/rollouts', { cursor: String(other.body.cursor) }));
    expect(crossed.status).toBe(400);
    const forged = Buffer.from(JSON.stringify({ pk: 1 })).toString('base64url');
    expect((await api(get('/rollouts', { cursor: forged }))).status).toBe(400);
    expect((await api(get('/rollouts', { cursor: 'bm90LWpzb24' }))).status).toBe(400);
  });

  it('finds a rollout by a unique short sha and names both candidates of an ambiguous one', async () => {
    const unique = await api(get('/rollouts/a3555555'));
    expect(unique).toMatchObject({ status: 200, body: { sha: ROLLOUTS[4]?.sha } });
    const ambiguous = await api(get('/rollouts/BEEF123'));
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.message).toContain(ROLLOUTS[0]?.sha);
    expect(ambiguous.body.message).toContain(ROLLOUTS[1]?.sha);
    expect((await api(get('/rollouts/beef1231'))).body).toMatchObject({ sha: ROLLOUTS[1]?.sha });
    expect((await api(get('/rollouts/fff0000'))).status).toBe(404);
  });
});

describe("a rollout's list entry carries the index keys, so summary updates write no index entry", () => {
  let table: TestTable;
  let ref: ReturnType<typeof createTableRef>;
  let api: Api;
  const at = (minute: number) => new Date(Date.UTC(2026, 11, 1, 9, minute)).toISOString();
  const push = (sha: string, gitRef: string, minute: number) => ({
    sha,
    repo: 'org/gitops',
    ref: gitRef,
    receivedAt: at(minute),
    repoUrl: 'https://github.com/org/gitops',
    trigger: 'webhook' as const,
  });
  const raw = async (sha: string, sk: string) =>
    (await ref.doc.send(new GetCommand({ TableName: ref.tableName, Key: { pk: rolloutPk(sha), sk } }))).Item;

  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    api = apiOver(ref);
  });
  afterAll(async () => table.close());

  it('keeps the summary out of every index and lists it through its entry, refs added later included', async () => {
    const sha = `c0${'1'.repeat(38)}`;
    const writer = dynamoRolloutWriter(ref, 86400);
    await writer.start(push(sha, 'refs/heads/main', 1));
    await writer.start(push(sha, 'refs/tags/v2.0.0', 2));
    const summary = await raw(sha, SUMMARY_SK);
    expect(summary).toBeDefined();
    for (const key of ['gsi1pk', 'gsi2pk', 'gsi3pk']) expect(summary).not.toHaveProperty(key);
    expect(await raw(sha, LISTING_SK)).toMatchObject({
      gsi1pk: 'SHA#c011',
      gsi2pk: 'ROLLOUTS',
      refs: ['refs/heads/main', 'refs/tags/v2.0.0'],
    });
    const tagged = await api(get('/rollouts', { ref: 'refs/tags/v2.0.0' }));
    expect(tagged.body.items).toEqual([expect.objectContaining({ sha, status: 'pending' })]);
    expect((await api(get('/rollouts/c011111'))).body).toMatchObject({ sha });
  });

  it('lists a summary written before entries existed (its own index keys) beside new ones, newest first', async () => {
    const old = `c1${'2'.repeat(38)}`;
    await ref.doc.send(
      new PutCommand({
        TableName: ref.tableName,
        Item: {
          pk: rolloutPk(old),
          sk: SUMMARY_SK,
          type: 'rollout',
          ...push(old, 'refs/heads/main', 3),
          ...summaryIndexFields({ sha: old, repo: 'org/gitops', receivedAt: at(3) }),
          refs: ['refs/heads/main'],
          status: 'succeeded',
          counts: {},
          decisions: {},
        },
      }),
    );
    const newer = `c2${'3'.repeat(38)}`;
    await dynamoRolloutWriter(ref, 86400).start(push(newer, 'refs/heads/main', 4));
    const { body } = await api(get('/rollouts', { repo: 'org/gitops', ref: 'main' }));
    expect((body.items as { sha: string }[]).map((i) => i.sha)).toEqual([newer, old, `c0${'1'.repeat(38)}`]);
    expect((await api(get('/rollouts/c122222'))).body).toMatchObject({ sha: old, status: 'succeeded' });
  });

  it('skips an entry whose summary was never written (a start cut short between the two) and answers 200', async () => {
    const cut = `c3${'4'.repeat(38)}`;
    await putListing(ref, { sha: cut, repo: 'org/gitops', ref: 'refs/heads/main', receivedAt: at(5) }, 0);
    const { status, body } = await api(get('/rollouts', { limit: '2' }));
    expect(status).toBe(200);
    expect((body.items as { sha: string }[]).map((i) => i.sha)).toEqual([
      `c2${'3'.repeat(38)}`,
      `c1${'2'.repeat(38)}`,
    ]);
    // The redelivered push writes the summary: listed from then on.
    await dynamoRolloutWriter(ref, 86400).start(push(cut, 'refs/heads/main', 5));
    expect(((await api(get('/rollouts', { limit: '1' }))).body.items as { sha: string }[])[0]?.sha).toBe(cut);
  });
});
