import { describe, expect, it } from 'vitest';
import type { ApplicationSource } from '../../../lib/argocd/application.js';
import type { ManifestSet } from '../../../lib/git/manifest-types.js';
import type { ReadManifestsRequest } from '../../../lib/git/manifests.js';
import { createManifestReader } from '../../../lib/reconcile/app-manifests.js';
import type { SourceResolution } from '../../../lib/reconcile/behind.js';
import { type TrackedApp, trackApplication } from '../../../lib/reconcile/tracked-app.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const GITOPS = 'https://git.example/org/gitops';
const OTHER = 'https://git.example/org/other';

const set = (path: string, extra: Partial<ManifestSet> = {}): ManifestSet => ({
  documents: [
    { path: `${path}/x.yaml`, doc: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: path } } },
  ],
  notRendered: false,
  errors: [],
  skipped: [],
  ...extra,
});

function app(name: string, sources: unknown[], revisions: string[]): TrackedApp {
  const result = trackApplication('hub', {
    metadata: { name, namespace: 'argocd' },
    spec: sources.length === 1 ? { source: sources[0] } : { sources },
    status: { sync: sources.length === 1 ? { revision: revisions[0] } : { revisions } },
  });
  if (!result.ok) throw new Error(result.reason);
  return result.value;
}

function reader(answers: Record<string, ManifestSet | Error> = {}) {
  const requests: ReadManifestsRequest[] = [];
  const read = createManifestReader({
    git: {
      readManifests: async (request) => {
        requests.push(request);
        const answer = answers[request.path] ?? set(request.path);
        if (answer instanceof Error) throw answer;
        return answer;
      },
    },
    credentials: async () => ({ token: 'tok' }),
    repositories: {
      repository: (source: ApplicationSource) => (source.repoURL === GITOPS ? { url: GITOPS } : undefined),
      resolve: (): SourceResolution => ({
        kind: 'resolved',
        repo: { url: GITOPS },
        repoKey: 'git.example/org/gitops',
        resolved: { found: true, sha: A, ref: 'refs/heads/main', via: 'ref' },
      }),
    },
  });
  return { read, requests };
}

describe('createManifestReader', () => {
  it('reads a source at the commit Argo CD synced, non-recursively unless the app says so', async () => {
    const { read, requests } = reader();
    const result = await read(
      app('web', [{ repoURL: GITOPS, path: 'apps/web', targetRevision: 'main' }], [B]),
    );
    expect(result.manifests?.docs).toHaveLength(1);
    expect(result.manifests?.limitReached).toBeUndefined();
    expect(requests).toEqual([
      {
        repo: { url: GITOPS, auth: { token: 'tok' } },
        sha: B,
        path: 'apps/web',
        recurse: false,
        ref: 'refs/heads/main',
      },
    ]);
  });

  it('walks one (repository, commit, path) once for every app that shares it', async () => {
    const { read, requests } = reader();
    for (const name of ['a', 'b', 'c']) {
      await read(app(name, [{ repoURL: GITOPS, path: 'apps/web', targetRevision: 'main' }], [B]));
    }
    expect(requests).toHaveLength(1);
  });

  it.each([
    [
      'marks the result partial when one source is of an unlisted repository',
      [
        { repoURL: GITOPS, path: 'apps/web', targetRevision: 'main' },
        { repoURL: OTHER, path: 'apps/x', targetRevision: 'main' },
      ],
      {},
      { docs: 1, limitReached: true, problems: ['source apps/x: repository not in the fleet file'] },
    ],
    [
      'marks the result partial when a file did not parse',
      [{ repoURL: GITOPS, path: 'apps/web', targetRevision: 'main' }],
      { 'apps/web': set('apps/web', { errors: [{ path: 'apps/web/bad.yaml', message: 'not YAML' }] }) },
      { docs: 1, limitReached: true, problems: [] },
    ],
    [
      'reads nothing when Git fails, so the manifest rules are skipped',
      [{ repoURL: GITOPS, path: 'apps/web', targetRevision: 'main' }],
      { 'apps/web': new Error('fetching a commit of git.example/org/gitops: HTTP 500') },
      {
        docs: undefined,
        problems: ['source apps/web: fetching a commit of git.example/org/gitops: HTTP 500'],
      },
    ],
    [
      'says a Helm chart is not rendered',
      [{ repoURL: GITOPS, path: 'charts/web', targetRevision: 'main' }],
      { 'charts/web': set('charts/web', { documents: [], notRendered: true }) },
      { docs: 0, notRendered: true, problems: [] },
    ],
    [
      'leaves a values-only ref source out',
      [
        { repoURL: GITOPS, path: 'apps/web', targetRevision: 'main' },
        { repoURL: OTHER, targetRevision: 'main', ref: 'values' },
      ],
      {},
      { docs: 1, problems: [] },
    ],
  ])('%s', async (_name, sources, answers, expected) => {
    const { read } = reader(answers as Record<string, ManifestSet | Error>);
    const result = await read(
      app(
        'web',
        sources,
        sources.map(() => B),
      ),
    );
    expect(result.problems).toEqual(expected.problems);
    expect(result.manifests?.docs.length).toBe(expected.docs);
    if ('limitReached' in expected) expect(result.manifests?.limitReached).toBe(expected.limitReached);
    if ('notRendered' in expected) expect(result.manifests?.notRendered).toBe(expected.notRendered);
  });

  it('does not read a source Argo CD has not synced to a commit', async () => {
    const { read, requests } = reader();
    const result = await read(
      app('web', [{ repoURL: GITOPS, path: 'apps/web', targetRevision: 'main' }], ['1.2.3']),
    );
    expect(requests).toEqual([]);
    expect(result).toEqual({ problems: ['source apps/web: no synced commit'] });
  });
});
