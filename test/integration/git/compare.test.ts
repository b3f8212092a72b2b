import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { compareCommits } from '../../../lib/git/compare.js';
import type { CompareRequest } from '../../../lib/git/compare-model.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { ChangedFiles } from '../../../lib/webhook/push-event.js';
import {
  githubComparison,
  gitlabComparison,
  type ProviderApiDouble,
  startProviderApi,
} from '../../helpers/git-provider-api.js';

const before = 'a'.repeat(40);
const after = 'b'.repeat(40);

describe('the GitHub compare client', () => {
  let api: ProviderApiDouble;
  beforeAll(async () => {
    api = await startProviderApi();
  });
  afterAll(async () => {
    await api.close();
  });
  beforeEach(() => {
    api.requests.length = 0;
  });

  const request = (overrides: Partial<CompareRequest> = {}): CompareRequest => ({
    provider: 'github',
    apiBaseUrl: api.githubApi,
    repository: 'org/gitops',
    before,
    after,
    token: 'ghs_token',
    ...overrides,
  });
  const path = (base: string, head: string) =>
    `/github/repos/org/gitops/compare/${base}...${head}?per_page=1&page=1`;

  it('lists added, modified and removed files, and both names of a rename', async () => {
    api.answer(path(before, after), {
      body: githubComparison('ahead', [
        { filename: 'apps/web/deploy.yaml', status: 'modified' },
        { filename: 'apps/new.yaml', status: 'added' },
        { filename: 'apps/old.yaml', status: 'removed' },
        { filename: 'apps/api/v2.yaml', status: 'renamed', previous_filename: 'apps/api/v1.yaml' },
      ]),
    });
    const result: ChangedFiles = await compareCommits(request());
    expect(result).toEqual({
      known: true,
      files: [
        'apps/api/v1.yaml',
        'apps/api/v2.yaml',
        'apps/new.yaml',
        'apps/old.yaml',
        'apps/web/deploy.yaml',
      ],
    });
  });

  it('authenticates with a bearer token and asks for the versioned JSON', async () => {
    api.answer(path(before, after), { body: githubComparison('ahead', []) });
    await compareCommits(request());
    expect(api.requests[0]?.headers).toMatchObject({
      authorization: 'Bearer ghs_token',
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
    });
  });

  it('adds the reverse comparison after a force push, so files only the old tip changed count too', async () => {
    api.answer(path(before, after), {
      body: githubComparison('diverged', [{ filename: 'apps/new-work.yaml', status: 'added' }]),
    });
    api.answer(path(after, before), {
      body: githubComparison('diverged', [{ filename: 'apps/dropped-work.yaml', status: 'added' }]),
    });
    expect(await compareCommits(request())).toEqual({
      known: true,
      files: ['apps/dropped-work.yaml', 'apps/new-work.yaml'],
    });
    expect(api.requests).toHaveLength(2);
  });

  it('treats an identical comparison as a known empty list', async () => {
    api.answer(path(before, after), { body: { status: 'identical', commits: [] } });
    expect(await compareCommits(request())).toEqual({ known: true, files: [] });
  });

  it('reports 300 files as truncated, since GitHub lists no more for a whole comparison', async () => {
    const files = Array.from({ length: 300 }, (_, i) => ({
      filename: `f${i}.yaml`,
      status: 'added' as const,
    }));
    api.answer(path(before, after), { body: githubComparison('ahead', files) });
    expect(await compareCommits(request())).toMatchObject({ known: false, reason: 'compare-failed' });
  });

  it.each([
    ['a 404 for an unknown commit', { status: 404, body: { message: 'Not Found' } }],
    ['a 500', { status: 500, body: {} }],
    ['a body that is not JSON', { body: '<html>oops</html>' }],
    ['a comparison without files', { body: { status: 'ahead' } }],
  ])('answers unknown (fail open) for %s', async (_name, answer) => {
    api.answer(path(before, after), answer);
    expect(await compareCommits(request())).toMatchObject({ known: false, reason: 'compare-failed' });
  });

  it('answers unknown when the API does not answer in time', async () => {
    api.answer(path(before, after), { body: githubComparison('ahead', []), delayMs: 2_000 });
    const result = await compareCommits(request(), { timeoutMs: 100 });
    expect(result).toEqual({ known: false, reason: 'compare-failed', detail: 'no answer within 100 ms' });
  });

  it('answers unknown without a request for a created branch (zero before)', async () => {
    expect(await compareCommits(request({ before: '0'.repeat(40) }))).toMatchObject({ known: false });
    expect(api.requests).toEqual([]);
  });

  it('logs the failure without the token', async () => {
    const logger = createMemoryLogger();
    api.answer(path(before, after), { status: 403, body: { message: 'Bad credentials' } });
    await compareCommits(request(), { logger });
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]?.fields).toMatchObject({ detail: 'the API answered HTTP 403' });
    expect(JSON.stringify(logger.lines)).not.toContain('ghs_token');
  });
});

describe('the GitLab compare client', () => {
  let api: ProviderApiDouble;
  beforeAll(async () => {
    api = await startProviderApi();
  });
  afterAll(async () => {
    await api.close();
  });
  beforeEach(() => {
    api.requests.length = 0;
  });

  const request = (overrides: Partial<CompareRequest> = {}): CompareRequest => ({
    provider: 'gitlab',
    apiBaseUrl: api.gitlabApi,
    repository: 'platform/deploy/gitops',
    before,
    after,
    token: 'glpat-token',
    ...overrides,
  });
  const query = `from=${before}&to=${after}&straight=true`;
  const byPath = `/gitlab/api/v4/projects/platform%2Fdeploy%2Fgitops/repository/compare?${query}`;

  it('lists old and new paths of every diff, addressing the project by its encoded path', async () => {
    api.answer(byPath, {
      body: gitlabComparison([
        { old_path: 'apps/a.yaml', new_path: 'apps/a.yaml' },
        { old_path: 'apps/old.yaml', new_path: 'apps/new.yaml', renamed_file: true },
        { old_path: 'apps/gone.yaml', new_path: 'apps/gone.yaml', deleted_file: true },
      ]),
    });
    expect(await compareCommits(request())).toEqual({
      known: true,
      files: ['apps/a.yaml', 'apps/gone.yaml', 'apps/new.yaml', 'apps/old.yaml'],
    });
    expect(api.requests[0]?.headers['private-token']).toBe('glpat-token');
  });

  it('addresses the project by its numeric id when known', async () => {
    api.answer(`/gitlab/api/v4/projects/42/repository/compare?${query}`, { body: gitlabComparison([]) });
    expect(await compareCommits(request({ projectId: 42 }))).toEqual({ known: true, files: [] });
  });

  it('reports an overflowed diff collection as truncated', async () => {
    api.answer(byPath, {
      body: gitlabComparison([{ old_path: 'a.yaml', new_path: 'a.yaml' }], { compareTimeout: true }),
    });
    expect(await compareCommits(request())).toEqual({
      known: false,
      reason: 'compare-failed',
      detail: 'truncated: GitLab overflowed its diff limits',
    });
  });

  it.each([
    ['a 401', { status: 401, body: { message: '401 Unauthorized' } }],
    ['a 404', { status: 404, body: { message: '404 Project Not Found' } }],
    ['an answer without diffs', { body: { commits: [] } }],
  ])('answers unknown (fail open) for %s', async (_name, answer) => {
    api.answer(byPath, answer);
    expect(await compareCommits(request())).toMatchObject({ known: false, reason: 'compare-failed' });
  });
});
