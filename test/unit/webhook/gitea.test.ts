import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../lib/errors.js';
import { normalizeGiteaPush } from '../../../lib/webhook/gitea.js';
import { hostFixture, type Payload } from './hosts.js';
import { meta } from './support.js';

const event = (payload: Payload) => {
  const push = normalizeGiteaPush(payload, meta);
  return push.kind === 'push' ? push.event : push;
};

/** The Gitea sample as an ordinary push on top of an existing commit (the sample creates the branch). */
function giteaPush(): Payload {
  const payload = hostFixture('gitea-push');
  payload.before = 'a'.repeat(40);
  return payload;
}

describe('normalizeGiteaPush', () => {
  it('reads the files of each commit from the go-playground Gitea sample', () => {
    expect(event(giteaPush())).toMatchObject({
      provider: 'gitea',
      repo: {
        fullName: 'example/example',
        webUrl: 'http://localhost:3000/example/example',
        urls: [
          'http://localhost:3000/example/example',
          'http://localhost:3000/example/example.git',
          'git@localhost:example/example.git',
        ],
        defaultBranch: 'master',
      },
      ref: 'refs/heads/master',
      after: '67b56589a45103f891bdee7c0546e5d40bc02001',
      touchedDefaultBranch: true,
      author: { name: 'example' },
      commitTitle: 'example',
      commitUrl: 'http://localhost:3000/example/example/commit/67b56589a45103f891bdee7c0546e5d40bc02001',
      changedFiles: { known: true, files: ['example'] },
    });
  });

  it("reads Argo CD's Gogs sample (no head_commit) the same way", () => {
    const payload = hostFixture('gogs-push');
    payload.before = 'a'.repeat(40);
    expect(event(payload)).toMatchObject({
      repo: { fullName: 'john/repo-test', webUrl: 'http://gogs-server/john/repo-test' },
      author: { name: 'john' },
      pusher: { name: 'john', username: 'john' },
      commitTitle: 'New commit message',
      changedFiles: { known: true, files: ['cm.yaml'] },
    });
  });

  it.each<[string, (p: Payload) => void, unknown]>([
    [
      'a new branch (before all zeros)',
      (p) => (p.before = '0'.repeat(40)),
      { known: false, reason: 'created' },
    ],
    [
      'a list shorter than total_commits',
      (p) => (p.total_commits = 12),
      { known: false, reason: 'truncated' },
    ],
    ['a forced push', (p) => (p.forced = true), { known: false, reason: 'forced' }],
    ['no commits while the ref moved', (p) => (p.commits = []), { known: false, reason: 'no-commit-list' }],
    ['a deletion', (p) => (p.after = '0'.repeat(40)), { known: true, files: [] }],
  ])('files are %s → %j', (_name, mutate, files) => {
    const payload = giteaPush();
    mutate(payload);
    expect(event(payload)).toMatchObject({ changedFiles: files });
  });

  it('peels a tag push to the tagged commit named by head_commit', () => {
    const payload = giteaPush();
    payload.ref = 'refs/tags/v1.0.0';
    payload.after = 'f'.repeat(40);
    expect(event(payload)).toMatchObject({
      refType: 'tag',
      refName: 'v1.0.0',
      after: '67b56589a45103f891bdee7c0546e5d40bc02001',
      touchedDefaultBranch: false,
    });
  });

  it.each<[string, (p: Payload) => void, string]>([
    ['no ref', (p) => delete p.ref, '"ref"'],
    ['an after that is no SHA', (p) => (p.after = 'main'), '"after"'],
    ['no repository (null, as in GHSA-wp4p-9pxh-cgx2)', (p) => (p.repository = null), '"repository"'],
    ['commits that are no list', (p) => (p.commits = 'x'), '"commits"'],
    [
      'a file list that is no list of paths',
      (p) => ((p.commits as Payload[])[0] = { id: 'x', added: [1] }),
      '"commits[0].added"',
    ],
  ])('refuses %s with a 400 naming the field', (_name, mutate, field) => {
    const payload = giteaPush();
    mutate(payload);
    expect(() => normalizeGiteaPush(payload, meta)).toThrow(BadRequestError);
    expect(() => normalizeGiteaPush(payload, meta)).toThrow(field);
  });
});
