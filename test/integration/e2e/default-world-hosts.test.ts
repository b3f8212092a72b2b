import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPushExpectations } from '../../../infra/simulator/default-push.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { commitDefaultChange } from '../../helpers/world-push.js';
import { hostFixture, SECRETS, sign } from '../../unit/webhook/hosts.js';

interface AppOut {
  cluster: string;
  name: string;
  kind: string;
  state: string;
}

/**
 * The default world (its repositories served by the local git http-backend, four simulated clusters): a
 * real commit, then a Gitea push and a generic push naming the local repository URL, as a self-hosted Gitea
 * or a CI job would. Each must end exactly as the GitHub push of the same change does.
 */
describe('pushes from Gitea and the generic endpoint against the default simulated world', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({
      GITEA_WEBHOOK_SECRET: SECRETS.gitea,
      GENERIC_WEBHOOK_SECRET: SECRETS.generic,
    });
  }, 60_000);
  afterAll(async () => stack?.close());

  let pushes = 0;
  async function commitChange() {
    pushes += 1;
    const { commit, sample } = await commitDefaultChange(stack);
    return { ...commit, url: sample.repoUrl };
  }

  function expectDefaultOutcome(apps: AppOut[]) {
    const expected = defaultPushExpectations().filter(
      (e) => e.state !== undefined && e.kind === 'Application',
    );
    const states = Object.fromEntries(
      apps.filter((a) => a.kind === 'Application').map((a) => [`${a.cluster}/${a.name}`, a.state]),
    );
    expect(states).toEqual(Object.fromEntries(expected.map((e) => [`${e.cluster}/${e.name}`, e.state])));
  }

  it('a Gitea push with the commit file lists refreshes exactly the expected apps', async () => {
    const commit = await commitChange();
    const payload = hostFixture('gitea-push');
    const webUrl = commit.url.replace(/\.git$/, '');
    const head = {
      ...(payload.head_commit as object),
      id: commit.after,
      added: [],
      removed: [],
      modified: [...commit.changed],
    };
    Object.assign(payload, {
      ref: 'refs/heads/main',
      before: commit.before,
      after: commit.after,
      commits: [head],
      head_commit: head,
      repository: {
        ...(payload.repository as object),
        html_url: webUrl,
        clone_url: commit.url,
        default_branch: 'main',
      },
    });
    const response = await stack.post(
      '/webhooks/gitea',
      sign.gitea(JSON.stringify(payload), `gitea-${pushes}`),
    );
    expect(response).toMatchObject({
      status: 202,
      body: { delivery: `gitea-${pushes}`, rollout: commit.after },
    });
    expectDefaultOutcome((await stack.rolloutWhenDone(commit.after)).apps as AppOut[]);
  }, 40_000);

  it('a generic push from a CI job, with its file list, refreshes exactly the expected apps', async () => {
    const commit = await commitChange();
    const body = JSON.stringify({
      repo: commit.url,
      ref: 'main',
      before: commit.before,
      after: commit.after,
      files: commit.changed,
      defaultBranch: 'main',
    });
    const response = await stack.post('/webhooks/generic', sign.generic(body));
    expect(response).toMatchObject({ status: 202, body: { rollout: commit.after } });
    expectDefaultOutcome((await stack.rolloutWhenDone(commit.after)).apps as AppOut[]);
  }, 40_000);
});
