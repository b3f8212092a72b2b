import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { compareCommits } from '../../../lib/git/compare.js';
import type { CompareRequest } from '../../../lib/git/compare-model.js';
import { type ProviderApiDouble, startProviderApi } from '../../helpers/git-provider-api.js';
import {
  azureDiffs,
  bitbucketDiffstatPage,
  bitbucketServerChangesPage,
} from '../../helpers/host-api-answers.js';

const before = 'a'.repeat(40);
const after = 'b'.repeat(40);

describe('the compare clients of Bitbucket Cloud, Bitbucket Server and Azure DevOps', () => {
  let api: ProviderApiDouble;
  beforeAll(async () => {
    api = await startProviderApi();
  });
  afterAll(async () => api.close());
  beforeEach(() => {
    api.requests.length = 0;
  });

  describe('Bitbucket Cloud diffstat', () => {
    const request = (overrides: Partial<CompareRequest> = {}): CompareRequest => ({
      provider: 'bitbucket',
      apiBaseUrl: `${api.url}/bitbucket`,
      repository: 'acme/platform',
      before,
      after,
      token: 'bb-access-token',
      ...overrides,
    });
    const first = `/bitbucket/2.0/repositories/acme/platform/diffstat/${after}..${before}?topic=false&renames=true&pagelen=500`;

    it('reads every page through next, old and new paths alike, with the token as a bearer', async () => {
      const second = '/bitbucket/2.0/repositories/acme/platform/diffstat/x?page=2';
      api.answer(first, {
        body: bitbucketDiffstatPage(
          [
            { status: 'modified', old: 'apps/web/values.yaml', new: 'apps/web/values.yaml' },
            { status: 'renamed', old: 'apps/api/v1.yaml', new: 'apps/api/v2.yaml' },
          ],
          { next: `${api.url}${second}` },
        ),
      });
      api.answer(second, {
        body: bitbucketDiffstatPage(
          [
            { status: 'removed', old: 'apps/old.yaml' },
            { status: 'added', new: 'apps/new.yaml' },
          ],
          { page: 2 },
        ),
      });
      expect(await compareCommits(request())).toEqual({
        known: true,
        files: [
          'apps/api/v1.yaml',
          'apps/api/v2.yaml',
          'apps/new.yaml',
          'apps/old.yaml',
          'apps/web/values.yaml',
        ],
      });
      expect(api.requests.map((r) => r.headers.authorization)).toEqual([
        'Bearer bb-access-token',
        'Bearer bb-access-token',
      ]);
    });

    it('sends basic auth when the credentials name a user, a bearer for x-token-auth', async () => {
      api.answer(first, { body: bitbucketDiffstatPage([]) });
      await compareCommits(request({ username: 'jdoe', token: 'app-password' }));
      await compareCommits(request({ username: 'x-token-auth', token: 'access-token' }));
      expect(api.requests.map((r) => r.headers.authorization)).toEqual([
        `Basic ${Buffer.from('jdoe:app-password').toString('base64')}`,
        'Bearer access-token',
      ]);
    });

    it('never follows a next link to another host with the token', async () => {
      api.answer(first, { body: bitbucketDiffstatPage([], { next: 'https://elsewhere.example/2.0/page2' }) });
      expect(await compareCommits(request())).toMatchObject({
        known: false,
        detail: 'the next page is on another host',
      });
      expect(api.requests).toHaveLength(1);
    });

    it('does not follow a redirect with the token, and fails open', async () => {
      api.answer(first, { status: 302, body: '', headers: { Location: `${api.url}/stolen` } });
      expect(await compareCommits(request())).toMatchObject({ known: false, reason: 'compare-failed' });
      expect(api.requests.map((r) => r.url)).toEqual([first]);
    });

    it.each([
      ['a 403', { status: 403, body: { type: 'error', error: { message: 'Forbidden' } } }],
      ['an answer without values', { body: { pagelen: 500 } }],
    ])('answers unknown (fail open) for %s', async (_name, answer) => {
      api.answer(first, answer);
      expect(await compareCommits(request())).toMatchObject({ known: false, reason: 'compare-failed' });
    });
  });

  describe('Bitbucket Server changes', () => {
    const request = (): CompareRequest => ({
      provider: 'bitbucket-server',
      apiBaseUrl: `${api.url}/bbs`,
      repository: 'PLAT/deploy',
      before,
      after,
      token: 'bbs-http-token',
    });
    const page = (start: number) =>
      `/bbs/rest/api/latest/projects/PLAT/repos/deploy/changes?since=${before}&until=${after}&start=${start}&limit=1000`;

    it('pages with nextPageStart until the last page, moves giving both paths', async () => {
      api.answer(page(0), {
        body: bitbucketServerChangesPage(
          [
            { type: 'MODIFY', path: 'apps/web/values.yaml' },
            { type: 'MOVE', path: 'apps/api/v2.yaml', srcPath: 'apps/api/v1.yaml' },
          ],
          { nextPageStart: 2 },
        ),
      });
      api.answer(page(2), {
        body: bitbucketServerChangesPage([{ type: 'DELETE', path: 'apps/old.yaml' }], { start: 2 }),
      });
      expect(await compareCommits(request())).toEqual({
        known: true,
        files: ['apps/api/v1.yaml', 'apps/api/v2.yaml', 'apps/old.yaml', 'apps/web/values.yaml'],
      });
      expect(api.requests[0]?.headers.authorization).toBe('Bearer bbs-http-token');
    });

    it('answers unknown (fail open) when the repository is not found', async () => {
      api.answer(page(0), {
        status: 404,
        body: { errors: [{ message: 'Repository PLAT/deploy does not exist.' }] },
      });
      expect(await compareCommits(request())).toMatchObject({
        known: false,
        detail: 'the API answered HTTP 404',
      });
    });
  });

  describe('Azure DevOps diffs', () => {
    const request = (): CompareRequest => ({
      provider: 'azure-devops',
      apiBaseUrl: `${api.url}/azure/org`,
      repository: 'project/repo',
      before,
      after,
      token: 'azure-pat',
    });
    const query = new URLSearchParams({
      baseVersion: before,
      baseVersionType: 'commit',
      targetVersion: after,
      targetVersionType: 'commit',
      diffCommonCommit: 'false',
      $top: '2000',
      $skip: '0',
      'api-version': '7.1',
    });
    const path = `/azure/org/project/_apis/git/repositories/repo/diffs/commits?${query}`;

    it('lists file paths without their leading slash, leaves folders out, keeps both names of a rename', async () => {
      api.answer(path, {
        body: azureDiffs([
          { changeType: 'edit', path: '/apps', isFolder: true },
          { changeType: 'edit', path: '/apps/web/values.yaml' },
          { changeType: 'rename', path: '/apps/api/v2.yaml', originalPath: '/apps/api/v1.yaml' },
          { changeType: 'delete', path: '/apps/old.yaml' },
        ]),
      });
      expect(await compareCommits(request())).toEqual({
        known: true,
        files: ['apps/api/v1.yaml', 'apps/api/v2.yaml', 'apps/old.yaml', 'apps/web/values.yaml'],
      });
      expect(api.requests[0]?.headers.authorization).toBe(
        `Basic ${Buffer.from(':azure-pat').toString('base64')}`,
      );
    });

    it('answers unknown (fail open) for a 401', async () => {
      api.answer(path, { status: 401, body: '' });
      expect(await compareCommits(request())).toMatchObject({ known: false, reason: 'compare-failed' });
    });
  });
});
