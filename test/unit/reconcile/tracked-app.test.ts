import { describe, expect, it } from 'vitest';
import { trackApplication } from '../../../lib/reconcile/tracked-app.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const REPO = 'https://git.example/org/gitops';

const application = (spec: Record<string, unknown>, status: Record<string, unknown> = {}) => ({
  metadata: { name: 'web', namespace: 'argocd' },
  spec: { destination: { name: 'in-cluster', namespace: 'web' }, ...spec },
  status,
});

describe('trackApplication', () => {
  it('reads a single-source app with the revision Argo CD compared it at', () => {
    const tracked = trackApplication(
      'hub',
      application(
        { source: { repoURL: REPO, path: 'apps/web', targetRevision: 'main', directory: { recurse: true } } },
        { sync: { status: 'Synced', revision: A } },
      ),
    );
    expect(tracked.ok && tracked.value).toMatchObject({
      cluster: 'hub',
      key: 'argocd/web',
      multiSource: false,
      syncStatus: 'Synced',
      syncedRevision: A,
      sources: [{ index: 0, synced: A, recurse: true, source: { targetRevision: 'main', path: 'apps/web' } }],
    });
  });

  it('matches each source of a multi-source app with its own entry of status.sync.revisions', () => {
    const tracked = trackApplication(
      'hub',
      application(
        {
          sources: [
            { repoURL: REPO, path: 'apps/web', targetRevision: 'main' },
            { repoURL: 'https://git.example/org/values', targetRevision: 'v1', ref: 'values' },
          ],
        },
        { sync: { status: 'OutOfSync', revisions: [A, B] } },
      ),
    );
    expect(tracked.ok && tracked.value).toMatchObject({
      multiSource: true,
      syncedRevision: `${A},${B}`,
      sources: [
        { index: 0, synced: A, recurse: false },
        { index: 1, synced: B, source: { ref: 'values' } },
      ],
    });
  });

  it('keeps each source at its own index when an entry of status.sync.revisions is malformed', () => {
    const tracked = trackApplication(
      'hub',
      application(
        {
          sources: [
            { repoURL: REPO, path: 'a', targetRevision: 'main' },
            { repoURL: REPO, path: 'b', targetRevision: 'main' },
          ],
        },
        { sync: { revisions: [42, B] } },
      ),
    );
    expect(tracked.ok && tracked.value.sources.map((s) => s.synced)).toEqual([undefined, B]);
    expect(tracked.ok && tracked.value.syncedRevision).toBeUndefined();
  });

  it('keeps a source at its own index when an earlier source was ignored (no repoURL)', () => {
    const tracked = trackApplication(
      'hub',
      application(
        {
          sources: [
            { path: 'orphan', targetRevision: 'main' },
            { repoURL: REPO, path: 'apps/web', targetRevision: 'main', directory: { recurse: true } },
          ],
        },
        { sync: { revisions: [A, B] } },
      ),
    );
    expect(tracked.ok && tracked.value.sources).toMatchObject([
      { index: 1, synced: B, recurse: true, source: { path: 'apps/web' } },
    ]);
  });

  it('compares a hydrator app on its sync source only, whose commit is status.sync.revision', () => {
    const tracked = trackApplication(
      'hub',
      application(
        {
          sourceHydrator: {
            drySource: { repoURL: REPO, path: 'dry', targetRevision: 'main' },
            syncSource: { targetBranch: 'env/prod', path: 'prod' },
          },
        },
        { sync: { status: 'Synced', revision: B } },
      ),
    );
    expect(tracked.ok && tracked.value.sources).toEqual([
      expect.objectContaining({ index: 0, synced: B, source: expect.objectContaining({ hydrator: 'sync' }) }),
    ]);
  });

  it('leaves the synced revision out when Argo CD has not compared the app yet', () => {
    const tracked = trackApplication('hub', application({ source: { repoURL: REPO, path: '.' } }));
    expect(tracked.ok && tracked.value.sources[0]?.synced).toBeUndefined();
    expect(tracked.ok && tracked.value.syncedRevision).toBeUndefined();
  });

  it.each([
    ['an object without a spec source', application({}), 'spec has no source'],
    ['a number', 42, 'object is not an object'],
    [
      'a source whose repoURL is not Git',
      application({ source: { repoURL: 'not a url' } }),
      'spec.source.repoURL is not a Git repository URL',
    ],
  ])('turns %s into a reason instead of throwing', (_name, raw, reason) => {
    const tracked = trackApplication('hub', raw);
    expect(tracked).toMatchObject({ ok: false, reason });
  });
});
