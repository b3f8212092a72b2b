import { createHmac, generateKeyPairSync } from 'node:crypto';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_GITHUB_SECRET } from '../../../infra/local/stack.js';
import type { FleetConfig } from '../../../lib/fleet/fleet-config.js';
import { type GitHubChecksDouble, startGitHubChecksApi } from '../../helpers/github-checks-api.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { commitDefaultChange } from './support/default-change.js';

// Made at test time: no key is ever committed.
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const APP_ID = 31337;
const INSTALLATION = 5150;

interface AppOut {
  cluster: string;
  name: string;
  state: string;
  refreshedAt?: string;
}
interface RolloutOut {
  status: string;
  apps: AppOut[];
  actions?: { action: string; by: string; detail?: string }[];
}

const require = createRequire(import.meta.url);
const examples = require('@octokit/webhooks-examples') as {
  name: string;
  examples: Record<string, unknown>[];
}[];

/** GitHub's own `check_run` `requested_action` example, pointed at the simulated repository and commit. */
function retryPressed(sha: string, repoUrl: string, deliveryId: string) {
  const example = examples
    .find((d) => d.name === 'check_run')
    ?.examples.find((e) => e.action === 'requested_action');
  const payload = structuredClone(example ?? {}) as Record<string, Record<string, unknown>>;
  payload.requested_action = { identifier: 'retry' };
  payload.check_run = { ...payload.check_run, head_sha: sha, name: 'gitops-sync' };
  payload.repository = {
    ...payload.repository,
    html_url: repoUrl,
    clone_url: repoUrl,
    full_name: 'example/platform',
  };
  payload.sender = { ...payload.sender, login: 'octocat' };
  const body = JSON.stringify(payload);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'check_run',
      'x-github-delivery': deliveryId,
      'x-hub-signature-256': `sha256=${createHmac('sha256', LOCAL_GITHUB_SECRET).update(body).digest('hex')}`,
    },
  };
}

/**
 * The check run end to end on the simulated fleet: the rollout's notices create and complete it on a local
 * GitHub App double, and its "Retry failed" button (a signed `check_run` delivery) retries the failed app
 * as `POST /rollouts/{sha}/retry` does.
 */
describe('GitHub check run and its Retry button through the local stack', () => {
  let stack: TestStack;
  let github: GitHubChecksDouble;
  beforeAll(async () => {
    github = await startGitHubChecksApi({
      appId: APP_ID,
      publicKey,
      installationId: INSTALLATION,
      installedOn: ['example/platform'],
    });
    stack = await startTestStack(
      {},
      {
        fleetOverlay: (fleet: FleetConfig) => ({
          ...fleet,
          githubApp: {
            appId: APP_ID,
            privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
            installationId: INSTALLATION,
          },
          repositories: fleet.repositories.map((r) => ({
            ...r,
            provider: 'github' as const,
            apiUrl: github.apiUrl,
            checkRun: true,
          })),
        }),
      },
    );
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await github?.close();
  });

  const rollout = async (sha: string) => (await stack.get(`/rollouts/${sha}`)).body as RolloutOut;
  async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 45_000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  it('completes the check run with failure and a Retry button, which retries the failed app once', async () => {
    const { after, delivery } = await commitDefaultChange(stack, 'check-run-1');
    expect((await stack.post('/webhooks/github', delivery)).status).toBe(202);
    const done = (await stack.rolloutWhenDone(after)) as unknown as RolloutOut;
    const failed = done.apps.find((a) => a.cluster === 'spoke-c' && a.name === 'web-e2e');
    expect(failed?.state).toBe('failed');

    const runs = () => github.checkRuns.filter((r) => r.headSha === after);
    await until('the check run completed', () => runs()[0]?.state.status === 'completed');
    expect(runs()).toHaveLength(1);
    expect(runs()[0]).toMatchObject({
      repository: 'example/platform',
      state: {
        conclusion: 'failure',
        actions: [{ label: 'Retry failed', identifier: 'retry' }],
        output: { text: expect.stringContaining('argocd/web-e2e: failed') },
      },
    });

    const pressedAt = new Date(Date.now() - 1000).toISOString();
    const pressed = retryPressed(after, stack.world?.repoUrl('platform') ?? '', 'check-run-retry-1');
    const answer = await stack.post('/webhooks/github', pressed);
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ rollout: after, action: 'retry' });
    // The same delivery again (GitHub's redelivery) retries nothing more.
    expect(await stack.post('/webhooks/github', pressed)).toEqual({ status: 200, body: { duplicate: true } });

    const retries = (await rollout(after)).actions?.filter((a) => a.action === 'retry') ?? [];
    expect(retries).toEqual([expect.objectContaining({ by: 'github:octocat' })]);
    await until('the failed app refreshed again', async () => {
      const app = (await rollout(after)).apps.find((a) => a.cluster === 'spoke-c' && a.name === 'web-e2e');
      return (app?.refreshedAt ?? '') > pressedAt && ['failed', 'synced'].includes(app?.state ?? '');
    });
    // Still one check run for the commit, updated in place by the retry's notices.
    expect(runs()).toHaveLength(1);
  }, 120_000);

  it('ignores a button pressed on a commit of a repository the fleet does not list (202)', async () => {
    const pressed = retryPressed('e'.repeat(40), 'https://github.com/someone/else', 'check-run-retry-2');
    const answer = await stack.post('/webhooks/github', pressed);
    expect(answer).toEqual({
      status: 202,
      body: { ignored: 'the fleet has no checkRun repository by that name' },
    });
  });
});
