import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uiCookieValue } from '../../../lib/api/auth.js';
import type { ControlApiDeps } from '../../../lib/api/control-routes.js';
import { handleApi } from '../../../lib/api/handle-api.js';
import type { HttpRequest } from '../../../lib/http/request.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { createReleaseControl } from '../../../lib/release/control.js';
import type { AppTarget } from '../../../lib/rollouts/app-model.js';
import type { RolloutMeta } from '../../../lib/rollouts/ports/rollout-writer.js';
import { dynamoControlStore } from '../../../lib/store/control.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { dynamoFreezeStore } from '../../../lib/store/freezes.js';
import { dynamoRolloutIndex } from '../../../lib/store/rollout-index.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutSummary } from '../../../lib/store/rollout-summary.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

const NOW = new Date('2026-12-01T12:00:00.000Z');
const TOKEN = 'control-token';
const ARN = 'arn:aws:sts::123456789012:assumed-role/operator/alice';
const SHA = `c0ffee1${'0'.repeat(33)}`;
const FAILED_SHA = `dec0de1${'0'.repeat(33)}`;

const request = (
  method: string,
  path: string,
  body?: unknown,
  extra: Partial<HttpRequest> = {},
): HttpRequest => ({
  method,
  path,
  query: {},
  headers: { authorization: `Bearer ${TOKEN}` },
  pathParameters: {},
  body: Buffer.from(body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body)),
  ...extra,
});

describe('the control routes through the API handler against dynalite', () => {
  let table: TestTable;
  let ref: TableRef;
  let retried: { sha: string; apps: readonly AppTarget[] }[];
  let unpinned: (string | undefined)[];
  let call: (
    r: HttpRequest,
    options?: { apiToken?: string | undefined; unpin?: boolean },
  ) => Promise<{ status: number; body: Record<string, unknown> }>;

  async function rollout(sha: string, apps: { name: string; state: 'held' | 'failed' | 'synced' }[]) {
    const meta: RolloutMeta = {
      sha,
      repo: 'org/gitops',
      ref: 'refs/heads/main',
      trigger: 'webhook',
      receivedAt: '2026-12-01T11:00:00.000Z',
    };
    const writer = dynamoRolloutWriter(ref, 86400);
    await writer.start({ ...meta, repoUrl: 'https://github.com/org/gitops' });
    for (const app of apps)
      await writer.recordApp(meta, { cluster: 'prod-eu', namespace: 'argocd', kind: 'Application', ...app });
    await dynamoRolloutSummary(ref, 86_400).syncSummary(sha);
  }

  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    await rollout(SHA, [
      { name: 'web', state: 'synced' },
      { name: 'api', state: 'held' },
    ]);
    await rollout(FAILED_SHA, [
      { name: 'web', state: 'synced' },
      { name: 'api', state: 'failed' },
    ]);
    retried = [];
    unpinned = [];
    const clock = { now: () => NOW };
    const reader = dynamoRolloutReader(ref);
    const control = (unpin: boolean): ControlApiDeps => ({
      control: createReleaseControl({
        store: dynamoControlStore(ref),
        apps: (sha) => reader.listApps(sha),
        clock,
        release: async () => {},
        gate: async () => {},
        retry: async (sha, apps) => {
          retried.push({ sha, apps });
        },
      }),
      freezes: dynamoFreezeStore(ref),
      freezeFleet: async () => ({
        clusters: ['staging-1', 'prod-eu', 'prod-us'],
        repositories: ['https://github.com/org/gitops'],
      }),
      ...(unpin
        ? {
            unpin: async (repo?: string) => {
              unpinned.push(repo);
              return { queued: true };
            },
          }
        : {}),
      clock,
    });
    call = async (r, options = {}) => {
      const apiToken = 'apiToken' in options ? options.apiToken : TOKEN;
      const response = await handleApi(r, {
        rollouts: reader,
        index: dynamoRolloutIndex(ref),
        findings: { list: async () => ({ items: [] }) },
        health: async () => ({}),
        logger: createMemoryLogger(),
        ...(apiToken === undefined ? {} : { apiToken }),
        control: control(options.unpin === true),
      });
      return { status: response.statusCode, body: response.body === '' ? {} : JSON.parse(response.body) };
    };
  });
  afterAll(async () => table.close());

  it('answers 404 for an unknown commit, full or short', async () => {
    expect((await call(request('POST', `/rollouts/${'f'.repeat(40)}/pause`))).status).toBe(404);
    expect((await call(request('POST', '/rollouts/fffffff/abort'))).status).toBe(404);
  });

  it('answers 409 with the reason for a resume of a rollout neither halted nor paused', async () => {
    const { status, body } = await call(request('POST', `/rollouts/${SHA}/resume`));
    expect(status).toBe(409);
    expect(body).toEqual({ error: 'the rollout is neither halted nor paused' });
  });

  it('pauses by a short SHA and answers the rollout as GET does, the action by the IAM principal', async () => {
    const paused = await call(request('POST', '/rollouts/c0ffee1/pause', undefined, { principal: ARN }));
    expect(paused.status).toBe(200);
    const got = await call(request('GET', `/rollouts/${SHA}`));
    expect(paused.body).toEqual(got.body);
    expect(paused.body.actions).toEqual([{ action: 'pause', by: ARN, at: NOW.toISOString() }]);
    expect((await call(request('POST', `/rollouts/${SHA}/pause`))).status).toBe(409);
  });

  it('resumes a paused rollout; locally the action is by `token`', async () => {
    const { status, body } = await call(request('POST', `/rollouts/${SHA}/resume`, { skipFailed: true }));
    expect(status).toBe(200);
    expect((body.actions as { by: string }[]).at(-1)).toEqual({
      action: 'resume',
      by: 'token',
      at: NOW.toISOString(),
    });
  });

  it('is by `local` without API_TOKEN', async () => {
    const { status, body } = await call(request('POST', `/rollouts/${SHA}/pause`, {}, { headers: {} }), {
      apiToken: undefined,
    });
    expect(status).toBe(200);
    expect((body.actions as { by: string }[]).at(-1)?.by).toBe('local');
    expect((await call(request('POST', `/rollouts/${SHA}/resume`), { apiToken: undefined })).status).toBe(
      200,
    );
  });

  it('refuses a bad body with 400', async () => {
    for (const [action, body] of [
      ['resume', { skipFailed: 'yes' }],
      ['resume', { force: true }],
      ['pause', { now: true }],
      ['retry', { cluster: 'Not A Name' }],
      ['retry', '{not json'],
      ['abort', [1]],
    ] as const) {
      const answer = await call(request('POST', `/rollouts/${SHA}/${action}`, body));
      expect({ action, status: answer.status }).toEqual({ action, status: 400 });
    }
  });

  it('retries the failed apps, optionally only the one named, and 409s when nothing is left to retry', async () => {
    const all = await call(request('POST', `/rollouts/${FAILED_SHA}/retry`));
    expect(all.status).toBe(200);
    expect(retried.at(-1)?.apps.map((a) => a.name)).toEqual(['api']);
    const none = await call(request('POST', `/rollouts/${FAILED_SHA}/retry`, { name: 'web' }));
    expect(none).toEqual({ status: 409, body: { error: 'nothing to retry' } });
  });

  it('aborts a running rollout, then refuses to abort it again', async () => {
    const first = await call(request('POST', `/rollouts/${SHA}/abort`, undefined, { principal: ARN }));
    expect(first.status).toBe(200);
    expect((first.body.actions as { action: string; by: string }[]).at(-1)).toMatchObject({
      action: 'abort',
      by: ARN,
    });
    expect((await call(request('POST', `/rollouts/${SHA}/abort`))).status).toBe(409);
  });

  it('creates, lists and lifts a freeze', async () => {
    const created = await call(
      request(
        'POST',
        '/freezes',
        { repo: 'org/gitops', cluster: 'prod-*', reason: 'release weekend', until: '2026-12-24T18:00:00Z' },
        { principal: ARN },
      ),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      repo: 'github.com/org/gitops',
      cluster: 'prod-*',
      reason: 'release weekend',
      until: '2026-12-24T18:00:00.000Z',
      by: ARN,
      at: NOW.toISOString(),
    });
    const id = String(created.body.id);
    expect((await call(request('GET', '/freezes'))).body).toEqual({ items: [created.body] });
    expect((await call(request('DELETE', `/freezes/${id}`))).status).toBe(204);
    expect((await call(request('GET', '/freezes'))).body).toEqual({ items: [] });
    expect((await call(request('DELETE', `/freezes/${id}`))).status).toBe(404);
  });

  it('refuses a freeze whose glob names no fleet cluster, without a reason, or ending in the past', async () => {
    const glob = await call(request('POST', '/freezes', { cluster: 'dev-*', reason: 'x' }));
    expect(glob.status).toBe(400);
    expect(glob.body.message).toBe('cluster dev-* selects no cluster of the fleet');
    expect((await call(request('POST', '/freezes', { cluster: 'prod-eu' }))).status).toBe(400);
    expect(
      (await call(request('POST', '/freezes', { reason: 'x', until: '2026-11-01T00:00:00Z' }))).status,
    ).toBe(400);
    expect((await call(request('POST', '/freezes', 'nope'))).status).toBe(400);
  });

  it('unpins through the injected callback, or answers 409 when pinning is not enabled', async () => {
    expect(await call(request('POST', '/unpin'))).toEqual({
      status: 409,
      body: { error: 'pinning is not enabled' },
    });
    // Accepted: the fanout function restores the pins; the repository is named by its canonical key.
    expect(await call(request('POST', '/unpin', { repo: 'org/gitops' }), { unpin: true })).toEqual({
      status: 202,
      body: { queued: true, repo: 'github.com/org/gitops' },
    });
    expect(unpinned).toEqual(['github.com/org/gitops']);
    expect((await call(request('POST', '/unpin', { repo: 'org/elsewhere' }), { unpin: true })).status).toBe(
      400,
    );
    expect((await call(request('POST', '/unpin', { repo: 7 }), { unpin: true })).status).toBe(400);
  });

  it('needs the bearer token in the header: the page cookie does not open the control routes', async () => {
    const noAuth = await call(request('POST', `/rollouts/${FAILED_SHA}/pause`, undefined, { headers: {} }));
    expect(noAuth.status).toBe(401);
    const cookie = { cookie: `gitops_sync_ui=${uiCookieValue(TOKEN)}` };
    expect((await call(request('POST', '/freezes', { reason: 'x' }, { headers: cookie }))).status).toBe(401);
    expect((await call(request('GET', '/freezes', undefined, { headers: cookie }))).status).toBe(200);
  });

  it('answers 404 for an unknown control route and 405 for other methods', async () => {
    expect((await call(request('POST', `/rollouts/${SHA}/explode`))).status).toBe(404);
    expect((await call(request('PUT', '/freezes'))).status).toBe(405);
  });
});
