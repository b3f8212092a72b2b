import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../lib/errors.js';
import { normalizeBitbucketServerPush } from '../../../lib/webhook/bitbucket-server.js';
import { hostFixture, type Payload } from './hosts.js';
import { meta } from './support.js';

const events = (payload: Payload) =>
  normalizeBitbucketServerPush(payload, meta).map((p) => (p.kind === 'push' ? p.event : p));

describe('normalizeBitbucketServerPush', () => {
  it("turns Argo CD's refs_changed sample into a branch push carrying every clone link and the web link", () => {
    expect(events(hostFixture('bitbucket-server-refs-changed'))).toMatchObject([
      {
        provider: 'bitbucket-server',
        repo: {
          fullName: 'MYPROJECT/test-repo',
          webUrl: 'https://bitbucketserver/projects/MYPROJECT/repos/test-repo',
          urls: [
            'https://bitbucketserver/projects/MYPROJECT/repos/test-repo',
            'https://bitbucketserver/projects/MYPROJECT/repos/test-repo/browse',
            'ssh://git@bitbucketserver:7999/myproject/test-repo.git',
            'https://bitbucketserver/scm/myproject/test-repo.git',
          ],
        },
        ref: 'refs/heads/master',
        refName: 'master',
        before: 'f09c8889a2d234985734958795a31589cd91ffda',
        after: '22671f0349857934857983457983475ec39f196b',
        touchedDefaultBranch: true,
        created: false,
        deleted: false,
        author: { name: 'John', username: 'john' },
        commitUrl:
          'https://bitbucketserver/projects/MYPROJECT/repos/test-repo/commits/22671f0349857934857983457983475ec39f196b',
        changedFiles: { known: false, reason: 'no-commit-list' },
      },
    ]);
  });

  it('marks the DELETE change of the go-playground sample deleted', () => {
    expect(events(hostFixture('bitbucket-server-refs-changed-delete'))).toMatchObject([
      { ref: 'refs/heads/feature/wip', deleted: true, changedFiles: { known: true, files: [] } },
    ]);
  });

  it('gives one push per ref change: an added tag, an updated branch and a deleted branch', () => {
    const payload = hostFixture('bitbucket-server-refs-changed');
    const [update] = payload.changes as Payload[];
    const tag = {
      ref: { id: 'refs/tags/v2.0.0', displayId: 'v2.0.0', type: 'TAG' },
      refId: 'refs/tags/v2.0.0',
      fromHash: '0'.repeat(40),
      toHash: 'c'.repeat(40),
      type: 'ADD',
    };
    const deletion = { ...update, refId: 'refs/heads/old', toHash: '0'.repeat(40), type: 'DELETE' };
    payload.changes = [tag, update, deletion];
    expect(events(payload)).toMatchObject([
      { ref: 'refs/tags/v2.0.0', refType: 'tag', created: true, touchedDefaultBranch: false },
      { ref: 'refs/heads/master', created: false, deleted: false },
      { ref: 'refs/heads/old', deleted: true },
    ]);
  });

  it('ignores a ref that is neither a branch nor a tag', () => {
    const payload = hostFixture('bitbucket-server-refs-changed');
    (payload.changes as Payload[])[0] = {
      ...(payload.changes as Payload[])[0],
      refId: 'refs/pull-requests/1/from',
    };
    expect(events(payload)).toEqual([
      { kind: 'ignored', reason: 'ref "refs/pull-requests/1/from" is neither a branch nor a tag' },
    ]);
  });

  it('skips malformed clone links rather than failing, as Argo CD does since GHSA-f9gq-prrc-hrhc', () => {
    const payload = hostFixture('bitbucket-server-refs-changed');
    const links = (payload.repository as Payload).links as Payload;
    links.clone = [
      { name: 'http' },
      7,
      { href: 'https://bitbucketserver/scm/myproject/test-repo.git', name: 'http' },
    ];
    const [push] = events(payload);
    expect(push).toMatchObject({
      repo: { urls: expect.arrayContaining(['https://bitbucketserver/scm/myproject/test-repo.git']) },
    });
  });

  it.each<[string, (p: Payload) => void, string]>([
    ['no repository', (p) => delete p.repository, '"repository"'],
    ['no changes', (p) => delete p.changes, '"changes"'],
    ['a change that is no object', (p) => (p.changes = ['x']), '"changes[0]"'],
    [
      'a toHash that is no SHA',
      (p) => ((p.changes as Payload[])[0] = { ...(p.changes as Payload[])[0], toHash: 'x' }),
      '"changes[0].toHash"',
    ],
    ['a repository without links', (p) => ((p.repository as Payload).links = {}), '"repository.links"'],
  ])('refuses %s with a 400 naming the field', (_name, mutate, field) => {
    const payload = hostFixture('bitbucket-server-refs-changed');
    mutate(payload);
    expect(() => normalizeBitbucketServerPush(payload, meta)).toThrow(BadRequestError);
    expect(() => normalizeBitbucketServerPush(payload, meta)).toThrow(field);
  });
});
