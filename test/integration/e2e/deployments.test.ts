import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeploymentsDouble, startDeploymentsApi } from '../../helpers/deployments-api.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { commitAndSign } from '../../helpers/world-push.js';

const TOKEN = 'ghp_local-deployments-token';

describe('deployments of a rollout through the local stack and the GitHub deployments double', () => {
  let api: DeploymentsDouble;
  let stack: TestStack;
  beforeAll(async () => {
    api = await startDeploymentsApi({ gitlabToken: 'unused' });
    stack = await startTestStack(
      {},
      {
        fleetOverlay: (fleet) => ({
          ...fleet,
          clusters: fleet.clusters.map((c) =>
            c.name === 'spoke-a' ? { ...c, labels: { environment: 'production', production: 'true' } } : c,
          ),
          repositories: fleet.repositories.map((repo) =>
            repo.url.endsWith('/platform.git')
              ? { ...repo, provider: 'github', apiUrl: api.githubApi, token: TOKEN, deployments: true }
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

  /** The final notice may land just after the summary turns final. */
  async function deploymentsWhenFinal(sha: string) {
    const deadline = Date.now() + 10_000;
    const of = () => api.deployments.filter((d) => d.sha === sha);
    const open = () =>
      of().length === 0 || of().some((d) => ['in_progress', undefined].includes(d.states.at(-1)));
    while (Date.now() < deadline && open()) await new Promise((r) => setTimeout(r, 50));
    return of();
  }

  it('creates one deployment per destination environment and moves each to success, linking the page', async () => {
    const change = { 'apps/worker/README.md': 'worker notes\n' };
    const { commit, delivery } = await commitAndSign(stack, change, 'worker: notes');
    const response = await stack.post('/webhooks/github', delivery);
    expect(response.status).toBe(202);
    const rollout = (await stack.rolloutWhenDone(commit.after)) as {
      apps: { cluster: string; destination?: string; state: string }[];
    };
    const deployments = await deploymentsWhenFinal(commit.after);
    const expected = [
      ...new Set(
        rollout.apps.map((a) => {
          const where = a.destination ?? a.cluster;
          return where === 'spoke-a' ? 'production' : where;
        }),
      ),
    ].sort();
    expect(expected).toContain('production');
    expect(deployments.map((d) => d.environment).sort()).toEqual(expected);
    for (const deployment of deployments) {
      expect(deployment.states.at(-1)).toBe('success');
      expect(deployment.statuses.at(-1)?.log_url).toBe(`${stack.url}/ui/rollouts/${commit.after}`);
      expect(deployment.body.production_environment).toBe(deployment.environment === 'production');
      expect(deployment.authorization).toBe(`Bearer ${TOKEN}`);
    }
    // The rollout's feedback says what each environment shows on the host.
    const read = (await stack.get(`/rollouts/${commit.after}`)).body as {
      feedback?: { kind: string; target: string; state: string; error?: string }[];
    };
    const shown = (read.feedback ?? []).filter((f) => f.kind === 'deployment');
    expect(shown.map((f) => [f.target, f.state]).sort()).toEqual(expected.map((e) => [e, 'success']));
    expect(shown.every((f) => f.error === undefined)).toBe(true);
    expect(stack.logLines.map((l) => JSON.stringify(l)).join('\n')).not.toContain(TOKEN);
  });
});
