import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitStatusNotice } from '../../../lib/commit-status/commit-status-notice.js';
import { postStatus } from '../../../lib/commit-status/post-status.js';
import type { RepositoryConfig } from '../../../lib/fleet/fleet-config.js';
import { createMemoryLogger, type LogLine } from '../../../lib/logger.js';
import type { AppState } from '../../../lib/rollouts/state-model.js';
import { dynamoPostedStatuses } from '../../../lib/store/commit-statuses.js';
import { createTableRef } from '../../../lib/store/dynamo.js';
import { dynamoRolloutDigest } from '../../../lib/store/rollout-digest.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';
import { type ProviderApiDouble, startProviderApi } from '../../helpers/git-provider-api.js';

const GITHUB_TOKEN = 'ghp_status-token';
const GITLAB_TOKEN = 'glpat-status-token';

describe('commit statuses as a rollout moves, through dynalite and the GitHub and GitLab doubles', () => {
  let table: TestTable;
  let api: ProviderApiDouble;
  let writer: ReturnType<typeof dynamoRolloutWriter>;
  let notice: (sha: string) => Promise<void>;
  const logLines: LogLine[] = [];
  let n = 0;

  beforeAll(async () => {
    table = await startTestTable();
    api = await startProviderApi();
    const ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    writer = dynamoRolloutWriter(ref, 86400);
    const repositories: RepositoryConfig[] = [
      {
        url: 'https://github.com/org/gitops',
        token: GITHUB_TOKEN,
        apiUrl: api.githubApi,
        commitStatus: true,
      },
      {
        url: 'https://gitlab.example/group/deploy',
        provider: 'gitlab',
        token: GITLAB_TOKEN,
        apiUrl: api.gitlabApi,
        commitStatus: true,
        commitStatusPerCluster: true,
      },
      { url: 'https://github.com/org/quiet', token: GITHUB_TOKEN, apiUrl: api.githubApi },
    ];
    notice = commitStatusNotice({
      rollouts: dynamoRolloutReader(ref),
      // as the runtime wires it: counted from the summary's views, not from every app record
      digests: dynamoRolloutDigest(ref),
      repositories,
      credentials: async (repo) => (repo.token === undefined ? undefined : { token: repo.token }),
      posted: dynamoPostedStatuses(ref, 86400),
      post: (request) => postStatus(request),
      pageUrl: (sha) => `https://sync.example/ui/rollouts/${sha}`,
      logger: createMemoryLogger(logLines),
    });
  });
  afterAll(async () => {
    await api.close();
    await table.close();
  });

  async function rollout(repo: string, repoUrl: string) {
    n += 1;
    const meta = {
      sha: n.toString(16).padStart(40, 'd'),
      repo,
      ref: 'refs/heads/main',
      trigger: 'webhook' as const,
      receivedAt: new Date().toISOString(),
    };
    await writer.start({ ...meta, repoUrl });
    const move = async (states: Record<string, AppState>) => {
      for (const [key, state] of Object.entries(states)) {
        const [cluster = '', name = ''] = key.split('/');
        await writer.recordApp(meta, { cluster, namespace: 'argocd', name, kind: 'Application', state });
      }
      await writer.syncSummary(meta.sha);
      await notice(meta.sha);
    };
    return { sha: meta.sha, move };
  }

  const posted = (sha: string) => api.statuses.filter((s) => s.sha === sha);

  it('posts pending while the rollout runs, then success with the summary and the page link', async () => {
    const { sha, move } = await rollout('org/gitops', 'https://github.com/org/gitops');
    await move({ 'hub/web': 'refreshed', 'spoke/web': 'refreshed' });
    await move({ 'hub/web': 'synced' });
    await move({ 'spoke/web': 'synced' });
    await notice(sha);
    expect(posted(sha).map((s) => [s.state, s.description])).toEqual([
      ['pending', '0/2 synced, 2 refreshed'],
      ['pending', '1/2 synced, 1 refreshed'],
      ['success', '2/2 synced'],
    ]);
    expect(posted(sha).at(-1)).toMatchObject({
      repository: 'org/gitops',
      context: 'gitops-sync',
      targetUrl: `https://sync.example/ui/rollouts/${sha}`,
      authorization: `Bearer ${GITHUB_TOKEN}`,
    });
  });

  it('posts failure when an app fails', async () => {
    const { sha, move } = await rollout('org/gitops', 'https://github.com/org/gitops');
    await move({ 'hub/web': 'synced', 'hub/api': 'failed' });
    expect(posted(sha).map((s) => [s.state, s.description])).toEqual([['failure', '1/2 synced, 1 failed']]);
  });

  it('moves GitLab pending → running → failed, one post per state and one status per cluster', async () => {
    const { sha, move } = await rollout('group/deploy', 'https://gitlab.example/group/deploy.git');
    await move({ 'hub/web': 'matched', 'spoke/web': 'matched' });
    await move({ 'hub/web': 'syncing', 'spoke/web': 'refreshed' });
    await move({ 'spoke/web': 'syncing' });
    await move({ 'hub/web': 'synced', 'spoke/web': 'degraded' });
    const byContext = (context: string) =>
      posted(sha)
        .filter((s) => s.context === context)
        .map((s) => s.state);
    expect(byContext('gitops-sync')).toEqual(['pending', 'running', 'failed']);
    expect(byContext('gitops-sync/hub')).toEqual(['pending', 'running', 'success']);
    expect(byContext('gitops-sync/spoke')).toEqual(['pending', 'running', 'failed']);
    expect(
      posted(sha).every((s) => s.repository === 'group/deploy' && s.authorization === GITLAB_TOKEN),
    ).toBe(true);
    expect(logLines.filter((l) => l.message === 'commit status not posted')).toEqual([]);
  });

  it('posts nothing for a repository without commitStatus, and a host outage is a log line only', async () => {
    const quiet = await rollout('org/quiet', 'https://github.com/org/quiet');
    await quiet.move({ 'hub/web': 'synced' });
    expect(posted(quiet.sha)).toEqual([]);

    const down = await rollout('org/gitops', 'https://github.com/org/gitops');
    api.answer(`/github/repos/org/gitops/statuses/${down.sha}`, [
      { status: 503 },
      { status: 503 },
      { status: 503 },
    ]);
    await down.move({ 'hub/web': 'synced' });
    expect(posted(down.sha)).toEqual([]);
    const warning = logLines.find((l) => l.message === 'commit status not posted');
    expect(warning).toBeDefined();
    expect(JSON.stringify(logLines)).not.toContain(GITHUB_TOKEN);
    // The failed claim was released: once the host is back, the next notice posts it.
    api.answer(`/github/repos/org/gitops/statuses/${down.sha}`, []);
    await notice(down.sha);
    expect(posted(down.sha).map((s) => s.state)).toEqual(['success']);
  });
});
