import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../lib/errors.js';
import type { NormalizedPush } from '../../../lib/webhook/delivery.js';
import { normalizeGitHubPush } from '../../../lib/webhook/github.js';
import type { PushEvent } from '../../../lib/webhook/push-event.js';
import { githubPayloads, meta } from './support.js';

function pushOf(result: NormalizedPush): PushEvent {
  if (result.kind !== 'push') throw new Error(`expected a push, got ${result.kind}`);
  return result.event;
}

const normalize = (payload: unknown) => pushOf(normalizeGitHubPush(payload, meta));

describe('normalizeGitHubPush on real payloads', () => {
  it('reads an ordinary branch push: repository, ref, author, title and the union of changed files', () => {
    const payload = githubPayloads.branchPush([
      { added: ['apps/web/deploy.yaml'], modified: ['README.md'] },
      { removed: ['apps/old/deploy.yaml'], added: ['apps/new/deploy.yaml'], modified: ['README.md'] },
    ]);
    const event = normalize(payload);
    expect(event).toMatchObject({
      provider: 'github',
      deliveryId: 'd-1',
      ref: 'refs/heads/master',
      refType: 'branch',
      refName: 'master',
      before: 'b'.repeat(40),
      after: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
      touchedDefaultBranch: true,
      created: false,
      deleted: false,
      forced: false,
      author: { name: 'Codertocat', username: 'Codertocat' },
      pusher: { name: 'Codertocat' },
      commitTitle: 'Initial commit',
      commitUrl: 'https://github.com/Codertocat/Hello-World/commit/6113728f27ae82c7b1a177c8d03f9e96e0adf246',
      receivedAt: meta.receivedAt,
    });
    expect(event.changedFiles).toEqual({
      known: true,
      files: ['apps/web/deploy.yaml', 'README.md', 'apps/new/deploy.yaml', 'apps/old/deploy.yaml'],
    });
  });

  it('collects every repository URL form the payload gives, and the API base', () => {
    const event = normalize(githubPayloads.branchPush());
    expect(event.repo).toEqual({
      fullName: 'Codertocat/Hello-World',
      webUrl: 'https://github.com/Codertocat/Hello-World',
      urls: [
        'https://github.com/Codertocat/Hello-World',
        'https://github.com/Codertocat/Hello-World.git',
        'git@github.com:Codertocat/Hello-World.git',
        'git://github.com/Codertocat/Hello-World.git',
      ],
      defaultBranch: 'master',
      apiBaseUrl: 'https://api.github.com',
    });
  });

  it('reads the GitHub Enterprise Server API base off the payload links', () => {
    const event = normalize(githubPayloads.gheTagCreated());
    expect(event.repo.apiBaseUrl).toBe('https://octocoders.github.io/api/v3');
    expect(event.repo.urls).toContain('git@octocoders.github.io:Codertocat/Hello-World.git');
  });

  it('leaves out an API URL given as repository.url (other event shapes), which is not a repo URL', () => {
    const payload = githubPayloads.branchPush();
    (payload.repository as Record<string, unknown>).url =
      'https://api.github.com/repos/Codertocat/Hello-World';
    expect(normalize(payload).repo.urls).not.toContain('https://api.github.com/repos/Codertocat/Hello-World');
  });

  it('reads a tag push as a tag that never touches the default branch, with unknown files (created)', () => {
    const event = normalize(githubPayloads.tagCreated());
    expect(event).toMatchObject({
      refType: 'tag',
      refName: 'simple-tag',
      created: true,
      touchedDefaultBranch: false,
      changedFiles: { known: false, reason: 'created' },
    });
  });

  it('does not set touchedDefaultBranch for a tag named like the default branch (unlike Argo CD)', () => {
    const payload = githubPayloads.tagCreated();
    payload.ref = 'refs/tags/master';
    expect(normalize(payload).touchedDefaultBranch).toBe(false);
  });

  it('peels an annotated tag to the commit head_commit names, the revision Argo CD will report', () => {
    const payload = githubPayloads.tagCreated();
    payload.after = 'f'.repeat(40);
    expect(normalize(payload).after).toBe('6113728f27ae82c7b1a177c8d03f9e96e0adf246');
  });

  it('marks a newly created branch as unknown files, since its list is relative to another base', () => {
    const event = normalize(githubPayloads.branchCreated());
    expect(event).toMatchObject({ created: true, changedFiles: { known: false, reason: 'created' } });
  });

  it('marks a force push as unknown files, since commits lists only the new work', () => {
    const payload = githubPayloads.branchPush([{ modified: ['a.yaml'] }]);
    payload.forced = true;
    expect(normalize(payload)).toMatchObject({
      forced: true,
      changedFiles: { known: false, reason: 'forced' },
    });
  });

  it('reads a deletion as deleted, with nothing to refresh and no commit link', () => {
    const event = normalize(githubPayloads.tagDeleted());
    expect(event).toMatchObject({ deleted: true, changedFiles: { known: true, files: [] } });
    expect(event.commitUrl).toBeUndefined();
    expect(event.author).toEqual({ name: 'Codertocat' });
  });

  it('reads a pushed empty commit as a known-empty list, not an unknown one', () => {
    const event = normalize(githubPayloads.branchPush([{}]));
    expect(event.changedFiles).toEqual({ known: true, files: [] });
  });

  it.each([
    ['no commits array', (p: Record<string, unknown>) => delete p.commits],
    ['a null commits array', (p: Record<string, unknown>) => (p.commits = null)],
    ['an empty commits array while the ref moved', (p: Record<string, unknown>) => (p.commits = [])],
    [
      'a commit without its file lists',
      (p: Record<string, unknown>) => (p.commits = [{ id: 'x', message: 'm' }]),
    ],
  ])('marks %s as unknown files (no-commit-list)', (_name, change) => {
    const payload = githubPayloads.branchPush();
    change(payload);
    expect(normalize(payload).changedFiles).toEqual({ known: false, reason: 'no-commit-list' });
  });

  it('reads an empty commits array as known-empty when the ref did not move', () => {
    const payload = githubPayloads.branchPush();
    payload.before = payload.after;
    payload.commits = [];
    expect(normalize(payload).changedFiles).toEqual({ known: true, files: [] });
  });

  it.each([
    ['2048 commits (the delivery cap)', Array.from({ length: 2048 }, () => ({ modified: ['a.yaml'] }))],
    ['a commit listing 3000 files', [{ modified: Array.from({ length: 3000 }, (_, i) => `f/${i}.yaml`) }]],
    [
      'a commit whose lists together reach 3000 files',
      [
        {
          added: Array.from({ length: 1000 }, (_, i) => `a/${i}`),
          modified: Array.from({ length: 1000 }, (_, i) => `m/${i}`),
          removed: Array.from({ length: 1000 }, (_, i) => `r/${i}`),
        },
      ],
    ],
  ])('treats %s as truncated', (_name, commits) => {
    expect(normalize(githubPayloads.branchPush(commits)).changedFiles).toEqual({
      known: false,
      reason: 'truncated',
    });
  });

  it('keeps a list just under the caps as known', () => {
    const commits = Array.from({ length: 2047 }, (_, i) => ({ modified: [`apps/${i % 3}.yaml`] }));
    expect(normalize(githubPayloads.branchPush(commits)).changedFiles).toEqual({
      known: true,
      files: ['apps/0.yaml', 'apps/1.yaml', 'apps/2.yaml'],
    });
  });

  it('ignores a ref that is neither a branch nor a tag', () => {
    const payload = githubPayloads.branchPush();
    payload.ref = 'refs/notes/commits';
    expect(normalizeGitHubPush(payload, meta)).toEqual({
      kind: 'ignored',
      reason: 'ref "refs/notes/commits" is neither a branch nor a tag',
    });
  });

  it('falls back to the pusher when there is no head commit', () => {
    const payload = githubPayloads.branchPush();
    payload.head_commit = null;
    const event = normalize(payload);
    expect(event.author).toEqual({ name: 'Codertocat' });
    expect(event.commitTitle).toBe('');
    expect(event.commitUrl).toBe(`https://github.com/Codertocat/Hello-World/commit/${event.after}`);
  });

  it('uses the first line of a multi-line commit message as the title', () => {
    const payload = githubPayloads.branchPush();
    (payload.head_commit as Record<string, unknown>).message = 'Bump api to 2.4.1\n\nLong body\nmore';
    expect(normalize(payload).commitTitle).toBe('Bump api to 2.4.1');
  });
});

describe('normalizeGitHubPush on bodies that are not a push', () => {
  it.each([
    ['without ref', (p: Record<string, unknown>) => delete p.ref, 'push payload is missing "ref"'],
    ['without after', (p: Record<string, unknown>) => delete p.after, 'push payload is missing "after"'],
    ['without before', (p: Record<string, unknown>) => delete p.before, 'push payload is missing "before"'],
    [
      'without repository',
      (p: Record<string, unknown>) => delete p.repository,
      'push payload is missing "repository"',
    ],
    [
      'without repository.html_url',
      (p: Record<string, unknown>) => delete (p.repository as Record<string, unknown>).html_url,
      'push payload is missing "repository.html_url"',
    ],
    [
      'with after that is not a SHA',
      (p: Record<string, unknown>) => (p.after = 'main'),
      'push payload field "after" must be a commit SHA',
    ],
    [
      'with a ref that is a number',
      (p: Record<string, unknown>) => (p.ref = 7),
      'push payload field "ref" must be a string',
    ],
    [
      'with commits that is not a list',
      (p: Record<string, unknown>) => (p.commits = 'many'),
      'push payload field "commits" must be a list',
    ],
    [
      'with a file list that holds a number',
      (p: Record<string, unknown>) => (p.commits = [{ added: [1], modified: [], removed: [] }]),
      'push payload field "commits[0].added" must be a list of paths',
    ],
  ])('refuses a body %s with a 400 naming the field', (_name, change, message) => {
    const payload = githubPayloads.branchPush();
    change(payload);
    const attempt = () => normalizeGitHubPush(payload, meta);
    expect(attempt).toThrow(BadRequestError);
    expect(attempt).toThrow(message);
  });

  it.each([
    ['a list', []],
    ['a string', 'push'],
    ['null', null],
  ])('refuses %s as a payload', (_n, payload) => {
    expect(() => normalizeGitHubPush(payload, meta)).toThrow('push payload must be a JSON object');
  });
});
