import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../lib/errors.js';
import { normalizeBitbucketPush } from '../../../lib/webhook/bitbucket.js';
import { ZERO_SHA } from '../../../lib/webhook/push-event.js';
import { hostFixture, type Payload } from './hosts.js';
import { meta } from './support.js';

/** The published sample, its repository renamed to a real-looking one (the sample's links disagree). */
function repoPush(): Payload {
  const payload = hostFixture('bitbucket-repo-push');
  const repository = payload.repository as Payload;
  repository.full_name = 'acme/platform';
  (repository.links as Record<string, Payload>).html = { href: 'https://bitbucket.org/acme/platform' };
  return payload;
}

function changes(payload: Payload): Payload[] {
  return (payload.push as { changes: Payload[] }).changes;
}

describe('normalizeBitbucketPush', () => {
  it('turns the documented repo:push sample into one branch push with unknown files', () => {
    const [push] = normalizeBitbucketPush(repoPush(), meta);
    expect(push).toMatchObject({
      kind: 'push',
      event: {
        provider: 'bitbucket',
        deliveryId: 'd-1',
        repo: {
          fullName: 'acme/platform',
          webUrl: 'https://bitbucket.org/acme/platform',
          urls: ['https://bitbucket.org/acme/platform'],
          apiBaseUrl: 'https://api.bitbucket.org',
        },
        ref: 'refs/heads/name-of-branch',
        refType: 'branch',
        refName: 'name-of-branch',
        before: '1e65c05c1d5171631d92438a13901ca7dae9618c',
        after: '709d658dc5b6d6afcd46049c2f332ee3f515a67d',
        created: false,
        deleted: false,
        forced: false,
        author: { name: 'Emma', username: 'emmap1' },
        pusher: { name: 'Emma', username: 'emmap1' },
        commitTitle: 'new commit message',
        commitUrl:
          'https://bitbucket.org/user_name/repo_name/commits/c4b2b7914156a878aa7c9da452a09fb50c2091f2',
        changedFiles: { known: false, reason: 'no-commit-list' },
      },
    });
  });

  it('counts every branch push as touching the main branch, since the payload does not name it', () => {
    const [push] = normalizeBitbucketPush(repoPush(), meta);
    expect(push?.kind === 'push' && push.event.touchedDefaultBranch).toBe(true);
  });

  it('uses mainbranch when the repository names it', () => {
    const payload = repoPush();
    (payload.repository as Payload).mainbranch = { name: 'main' };
    const [push] = normalizeBitbucketPush(payload, meta);
    expect(push?.kind === 'push' && push.event.touchedDefaultBranch).toBe(false);
  });

  it('gives one push per change, in payload order, with tags, creations and deletions told apart', () => {
    const payload = repoPush();
    const [first] = changes(payload);
    const tag = structuredClone(first) as Payload;
    (tag.new as Payload).type = 'tag';
    (tag.new as Payload).name = 'v1.2.0';
    tag.old = null;
    tag.created = true;
    const deletion = structuredClone(first) as Payload;
    deletion.new = null;
    deletion.closed = true;
    const forced = structuredClone(first) as Payload;
    forced.forced = true;
    (payload.push as { changes: Payload[] }).changes = [first as Payload, tag, deletion, forced];
    const pushes = normalizeBitbucketPush(payload, meta).map((p) => (p.kind === 'push' ? p.event : p));
    expect(pushes).toMatchObject([
      { ref: 'refs/heads/name-of-branch', deleted: false },
      {
        ref: 'refs/tags/v1.2.0',
        refType: 'tag',
        before: ZERO_SHA,
        created: true,
        touchedDefaultBranch: false,
        changedFiles: { known: false, reason: 'created' },
      },
      { ref: 'refs/heads/name-of-branch', deleted: true, after: ZERO_SHA },
      { forced: true, changedFiles: { known: false, reason: 'forced' } },
    ]);
  });

  it('ignores a Mercurial bookmark change', () => {
    const payload = repoPush();
    const [change] = changes(payload);
    ((change as Payload).new as Payload).type = 'bookmark';
    expect(normalizeBitbucketPush(payload, meta)).toEqual([
      { kind: 'ignored', reason: 'ref type "bookmark" is not handled' },
    ]);
  });

  it("reads the author of today's payloads from author.user, else from author.raw", () => {
    const payload = repoPush();
    const target = ((changes(payload)[0] as Payload).new as Payload).target as Payload;
    target.author = { raw: 'Grace Hopper <grace@example.com>', type: 'author' };
    const [push] = normalizeBitbucketPush(payload, meta);
    expect(push?.kind === 'push' && push.event.author).toEqual({ name: 'Grace Hopper' });
  });

  it.each<[string, (p: Payload) => void, string]>([
    ['no repository', (p) => delete p.repository, '"repository"'],
    ['no push', (p) => delete p.push, '"push"'],
    ['changes that are no list', (p) => ((p.push as Payload).changes = {}), '"push.changes"'],
    ['a change that is no object', (p) => ((p.push as Payload).changes = [3]), '"push.changes[0]"'],
    [
      'a target hash that is no SHA',
      (p) => ((((changes(p)[0] as Payload).new as Payload).target as Payload).hash = 'HEAD'),
      '"push.changes[0].new.target.hash" must be a commit SHA',
    ],
    ['a change with neither side', (p) => ((p.push as Payload).changes = [{}]), '"push.changes[0].new"'],
    [
      'a repository without any link or name',
      (p) => {
        p.repository = { uuid: '{x}' };
      },
      '"repository.links.html.href"',
    ],
  ])('refuses %s with a 400 naming the field', (_name, mutate, field) => {
    const payload = repoPush();
    mutate(payload);
    expect(() => normalizeBitbucketPush(payload, meta)).toThrow(BadRequestError);
    expect(() => normalizeBitbucketPush(payload, meta)).toThrow(field);
  });
});
