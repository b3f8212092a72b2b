import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleApi } from '../../../lib/api/handle-api.js';
import type { HttpRequest } from '../../../lib/http/request.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { createTableRef } from '../../../lib/store/dynamo.js';
import { dynamoRolloutIndex } from '../../../lib/store/rollout-index.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
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
  let api: (request: HttpRequest) => Promise<{ status: number; body: Record<string, unknown> }>;

  beforeAll(async () => {
    table = await startTestTable();
    const ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    const writer = dynamoRolloutWriter(ref, 86400);
    for (const r of ROLLOUTS) {
      await writer.start({ ...r, repoUrl: `https://github.com/${r.repo}`, trigger: 'webhook' });
    }
    const deps = {
      rollouts: dynamoRolloutReader(ref),
      index: dynamoRolloutIndex(ref),
      findings: { list: async () => ({ items: [] }) },
      health: async () => ({}),
      logger: createMemoryLogger(),
    };
    api = async (request) => {
      const response = await handleApi(request, deps);
      return { status: response.statusCode, body: JSON.parse(response.body) };
    };
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
