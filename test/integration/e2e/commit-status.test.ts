import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPush } from '../../../infra/simulator/default-push.js';
import { type ProviderApiDouble, startProviderApi } from '../../helpers/git-provider-api.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { commitAndSign } from '../../helpers/world-push.js';

const TOKEN = 'ghp_local-status-token';

describe('commit statuses of a rollout through the local stack and the GitHub double', () => {
  let api: ProviderApiDouble;
  let stack: TestStack;
  let pushes = 0;
  beforeAll(async () => {
    api = await startProviderApi();
    stack = await startTestStack(
      {},
      {
        fleetOverlay: (fleet) => ({
          ...fleet,
          repositories: fleet.repositories.map((repo) =>
            repo.url.endsWith('/platform.git')
              ? { ...repo, provider: 'github', apiUrl: api.githubApi, token: TOKEN, commitStatus: true }
              : repo,
          ),
        }),
      },
    );
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await api?.close();
  });

  async function push(changes: Record<string, string>, message: string) {
    pushes += 1;
    const { commit, delivery } = await commitAndSign(stack, changes, message);
    const response = await stack.post('/webhooks/github', delivery);
    expect(response.status).toBe(202);
    await stack.rolloutWhenDone(commit.after);
    return commit.after;
  }

  /** The final notice may land just after the summary turns final. */
  async function statusesWhenFinal(sha: string) {
    const deadline = Date.now() + 10_000;
    const of = () => api.statuses.filter((s) => s.sha === sha);
    while (Date.now() < deadline && of().at(-1)?.state === 'pending')
      await new Promise((r) => setTimeout(r, 50));
    return of();
  }

  it('posts pending while the rollout runs, then success with the summary and the page link', async () => {
    const sha = await push({ 'apps/worker/README.md': `worker notes ${pushes}\n` }, 'worker: notes');
    const statuses = await statusesWhenFinal(sha);
    expect(statuses[0]?.state).toBe('pending');
    expect(statuses.at(-1)).toMatchObject({
      repository: 'example/platform',
      state: 'success',
      context: 'gitops-sync',
      targetUrl: `${stack.url}/ui/rollouts/${sha}`,
      authorization: `Bearer ${TOKEN}`,
    });
    expect(statuses.at(-1)?.description).toMatch(/^(\d+)\/\1 synced$/);
    const page = await fetch(String(statuses.at(-1)?.targetUrl));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(sha);
  });

  it('posts failure, naming the failed app count, when an app fails', async () => {
    const base = defaultPush();
    const changes = Object.fromEntries(
      Object.entries(base.changes).map(([path, text]) => [
        path,
        text.replace('web:1.9.0', `web:3.0.${pushes}`),
      ]),
    );
    const sha = await push(changes, 'web: release');
    const statuses = await statusesWhenFinal(sha);
    expect(statuses[0]?.state).toBe('pending');
    expect(statuses.at(-1)?.state).toBe('failure');
    expect(statuses.at(-1)?.description).toMatch(/synced, .*1 failed/);
    expect(stack.logLines.map((l) => JSON.stringify(l)).join('\n')).not.toContain(TOKEN);
  });
});
