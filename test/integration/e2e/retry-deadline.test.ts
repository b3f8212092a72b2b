import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { commitDefaultChange } from './support/default-change.js';

interface RolloutBody {
  readonly status: string;
  readonly deadline?: string;
  readonly apps: readonly { cluster: string; name: string; state: string; refreshedAt?: string }[];
}

/**
 * An operator's retry after the rollout's deadline: the retried apps are followed to their end again
 * (their own deadline), not timed out at the first poll because the rollout's old deadline has passed.
 */
describe('retry after the rollout deadline (through the local stack)', () => {
  let stack: TestStack;
  const DEADLINE_SECONDS = 12;
  beforeAll(async () => {
    stack = await startTestStack({ TRACK_DEADLINE_SECONDS: String(DEADLINE_SECONDS) });
  }, 60_000);
  afterAll(async () => stack?.close());

  it('moves the deadline on when a retry refreshes apps, so they end as they really end', async () => {
    const { after, delivery } = await commitDefaultChange(stack, 'retry-dl');
    expect((await stack.post('/webhooks/github', delivery)).status).toBe(202);
    const commit = { after };
    const done = (await stack.rolloutWhenDone(commit.after)) as unknown as RolloutBody;
    const failed = done.apps.find((a) => a.cluster === 'spoke-c' && a.name === 'web-e2e');
    expect(failed?.state).toBe('failed');
    // Past the rollout's deadline before the retry.
    const wait = Date.parse(done.deadline ?? '') - Date.now() + 1000;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const retried = await fetch(`${stack.url}/rollouts/${commit.after}/retry`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ cluster: 'spoke-c', namespace: 'argocd', name: 'web-e2e' }),
    });
    expect(retried.status).toBe(200);
    // The retried app is refreshed again (a later refreshedAt) and ends again: `failed` as scripted, not `timeout`.
    const retriedAt = new Date(Date.now() - 1000).toISOString();
    const started = Date.now();
    let app: { state: string; refreshedAt?: string } | undefined;
    let body: RolloutBody | undefined;
    while (Date.now() - started < 45_000) {
      body = (await (await fetch(`${stack.url}/rollouts/${commit.after}`)).json()) as RolloutBody;
      app = body.apps.find((a) => a.cluster === 'spoke-c' && a.name === 'web-e2e');
      const again = (app?.refreshedAt ?? '') > retriedAt;
      if (again && ['failed', 'timeout', 'error', 'synced', 'degraded'].includes(app?.state ?? '')) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect((app?.refreshedAt ?? '') > retriedAt).toBe(true);
    expect(app?.state).toBe('failed');
    expect(Date.parse(body?.deadline ?? '')).toBeGreaterThan(Date.parse(done.deadline ?? ''));
  }, 120_000);
});
