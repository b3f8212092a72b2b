import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../lib/errors.js';
import { normalizeAzureDevOpsPush } from '../../../lib/webhook/azure-devops.js';
import { hostFixture, type Payload } from './hosts.js';
import { meta } from './support.js';

const events = (payload: Payload) =>
  normalizeAzureDevOpsPush(payload, meta).map((p) => (p.kind === 'push' ? p.event : p));
const resource = (payload: Payload) => payload.resource as Payload;

describe('normalizeAzureDevOpsPush', () => {
  it("turns Argo CD's git.push sample into a push on the default branch with unknown files", () => {
    expect(events(hostFixture('azuredevops-git-push'))).toMatchObject([
      {
        provider: 'azure-devops',
        repo: {
          fullName: 'my-repo/my-repo',
          webUrl: 'https://dev.azure.com/my-org/my-project/_git/my-repo',
          urls: ['https://dev.azure.com/my-org/my-project/_git/my-repo'],
          defaultBranch: 'master',
        },
        ref: 'refs/heads/master',
        before: 'fa51eeb1e50b98293ce281e6d5492b9decae613b',
        after: '298a79aa1552799a70718a0ee914d153d5a1a76b',
        touchedDefaultBranch: true,
        author: { name: 'Test User' },
        pusher: { name: 'Test User', username: 'testuser@example.com' },
        commitTitle: 'draft',
        commitUrl:
          'https://dev.azure.com/my-org/my-project/_git/my-repo/commit/298a79aa1552799a70718a0ee914d153d5a1a76b',
        changedFiles: { known: false, reason: 'no-commit-list' },
      },
    ]);
  });

  it('drops the organisation user info of a remoteUrl from the web URL but keeps it among the URLs', () => {
    const payload = hostFixture('azuredevops-git-push');
    (resource(payload).repository as Payload).remoteUrl =
      'https://my-org@dev.azure.com/my-org/my-project/_git/my-repo';
    const [push] = events(payload);
    expect(push).toMatchObject({
      repo: {
        webUrl: 'https://dev.azure.com/my-org/my-project/_git/my-repo',
        urls: [
          'https://dev.azure.com/my-org/my-project/_git/my-repo',
          'https://my-org@dev.azure.com/my-org/my-project/_git/my-repo',
        ],
      },
    });
  });

  it('gives one push per ref update (Argo CD reads only the first), a branch off the default one included', () => {
    const payload = hostFixture('azuredevops-git-push');
    resource(payload).refUpdates = [
      { name: 'refs/heads/feature', oldObjectId: '0'.repeat(40), newObjectId: 'a'.repeat(40) },
      ...(resource(payload).refUpdates as Payload[]),
      { name: 'refs/tags/v1', oldObjectId: 'b'.repeat(40), newObjectId: '0'.repeat(40) },
    ];
    expect(events(payload)).toMatchObject([
      {
        ref: 'refs/heads/feature',
        created: true,
        touchedDefaultBranch: false,
        changedFiles: { reason: 'created' },
      },
      { ref: 'refs/heads/master', touchedDefaultBranch: true },
      { ref: 'refs/tags/v1', refType: 'tag', deleted: true },
    ]);
  });

  it('gives nothing for an empty refUpdates list (GHSA-gpx4-37g2-c8pv)', () => {
    const payload = hostFixture('azuredevops-git-push');
    resource(payload).refUpdates = [];
    expect(events(payload)).toEqual([]);
  });

  it.each<[string, (p: Payload) => void, string]>([
    ['no resource', (p) => delete p.resource, '"resource"'],
    ['no repository', (p) => delete resource(p).repository, '"resource.repository"'],
    ['no refUpdates', (p) => delete resource(p).refUpdates, '"resource.refUpdates"'],
    ['a ref update that is no object', (p) => (resource(p).refUpdates = [null]), '"resource.refUpdates[0]"'],
    [
      'a newObjectId that is no SHA',
      (p) =>
        (resource(p).refUpdates = [{ name: 'refs/heads/x', oldObjectId: 'a'.repeat(40), newObjectId: 'zz' }]),
      '"resource.refUpdates[0].newObjectId"',
    ],
    [
      'a repository without remoteUrl',
      (p) => delete (resource(p).repository as Payload).remoteUrl,
      '"resource.repository.remoteUrl"',
    ],
  ])('refuses %s with a 400 naming the field', (_name, mutate, field) => {
    const payload = hostFixture('azuredevops-git-push');
    mutate(payload);
    expect(() => normalizeAzureDevOpsPush(payload, meta)).toThrow(BadRequestError);
    expect(() => normalizeAzureDevOpsPush(payload, meta)).toThrow(field);
  });
});
