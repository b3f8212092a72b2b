import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubPush } from '../../../infra/local/sample-push.js';
import { LOCAL_GITHUB_SECRET } from '../../../infra/local/stack.js';
import { defaultPush } from '../../../infra/simulator/default-push.js';
import { canonicalRepoKey } from '../../../lib/matching/repo-url.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';

const json = (body: unknown) => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describe('release control over HTTP through the local stack (the API function as composed)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  }, 60_000);
  afterAll(async () => stack?.close());

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${stack.url}${path}`, {
      method,
      ...(body === undefined ? {} : json(body)),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  };

  it('refuses to act on a rollout that has ended, and answers 404 for an unknown one', async () => {
    const world = stack.world;
    if (world === undefined) throw new Error('no simulated world');
    const push = defaultPush();
    const commit = await world.commit(push.repository, push.changes, push.message, push.branch);
    const sample = {
      repoUrl: world.repoUrl('platform'),
      fullName: 'example/platform',
      branch: push.branch,
      before: commit.before,
      after: commit.after,
      changed: commit.changed,
      message: push.message,
    };
    expect(
      (await stack.post('/webhooks/github', githubPush(sample, LOCAL_GITHUB_SECRET, 'ctl-1'))).status,
    ).toBe(202);
    const done = await stack.rolloutWhenDone(commit.after);
    const paused = await call('POST', `/rollouts/${commit.after.slice(0, 8)}/pause`);
    expect(paused).toEqual({
      status: 409,
      body: { error: `the rollout has ended (${String(done.status)})` },
    });
    expect((await call('POST', `/rollouts/${commit.after}/resume`)).status).toBe(409);
    // Retrying is what an ended rollout with failed apps allows: they are sent to fan-out again.
    const retried = await call('POST', `/rollouts/${commit.after}/retry`);
    expect(retried.status).toBe(200);
    expect((retried.body as { actions?: { action: string; by: string }[] }).actions?.at(-1)).toMatchObject({
      action: 'retry',
    });
    expect((await call('POST', `/rollouts/${'0'.repeat(40)}/abort`)).status).toBe(404);
  }, 90_000);

  it('creates, lists and lifts a freeze checked against the fleet, by `local` without API_TOKEN', async () => {
    const refused = await call('POST', '/freezes', { cluster: 'nowhere-*', reason: 'x' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('cluster nowhere-* selects no cluster of the fleet');
    const url = stack.world?.repoUrl('platform') ?? '';
    const created = await call('POST', '/freezes', {
      repo: url,
      cluster: 'hub',
      reason: 'audit',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ cluster: 'hub', reason: 'audit', by: 'local' });
    expect(created.body.repo).toBe(canonicalRepoKey(url));
    expect((await call('GET', '/freezes')).body.items).toEqual([created.body]);
    expect((await call('DELETE', `/freezes/${created.body.id}`)).status).toBe(204);
    expect((await call('GET', '/freezes')).body.items).toEqual([]);
  });

  it('accepts an unpin and hands it to the fanout function (the API reaches no cluster)', async () => {
    expect(await call('POST', '/unpin')).toEqual({ status: 202, body: { queued: true } });
  });
});
