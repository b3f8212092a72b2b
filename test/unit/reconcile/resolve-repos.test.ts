import { describe, expect, it } from 'vitest';
import type { ApplicationSource } from '../../../lib/argocd/application.js';
import type { FleetConfig } from '../../../lib/fleet/fleet-config.js';
import type { GitRepo, RemoteRefs } from '../../../lib/git/remote-refs.js';
import { canonicalRepoKey } from '../../../lib/matching/repo-url.js';
import { readRepositories } from '../../../lib/reconcile/resolve-repos.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const D = 'd'.repeat(40);
const GITOPS = 'https://git.example/org/gitops.git';

const REFS: RemoteRefs = {
  head: 'refs/heads/main',
  refs: new Map([
    ['refs/heads/main', A],
    ['refs/heads/release', B],
    ['refs/tags/v1.2.0', C],
    ['refs/tags/v1.10.0', D],
    ['refs/tags/v2.0.0', A],
  ]),
};

const fleet: FleetConfig = {
  clusters: [],
  repositories: [{ url: GITOPS, token: 'tok' }, { url: 'https://git.example/org/broken' }],
  secretPolicy: 'block',
  secretStores: [],
};

const source = (
  repoURL: string,
  targetRevision: string,
  extra: Partial<ApplicationSource> = {},
): ApplicationSource => ({
  repoURL,
  repoKey: canonicalRepoKey(repoURL),
  targetRevision,
  path: '.',
  ...extra,
});

async function read(sources: ApplicationSource[]) {
  const calls: GitRepo[] = [];
  const repos = await readRepositories(sources, {
    fleet,
    git: {
      listRemoteRefs: async (repo) => {
        calls.push(repo);
        if (repo.url.includes('broken')) throw new Error('listing refs of git.example/org/broken: HTTP 500');
        return REFS;
      },
    },
    credentials: async (repo) => (repo.token === undefined ? undefined : { token: repo.token }),
    concurrency: 2,
  });
  return { repos, calls };
}

describe('readRepositories', () => {
  it('lists each fleet repository once, whatever URL spelling its apps use, with its credentials', async () => {
    const { repos, calls } = await read([
      source('https://git.example/org/gitops', 'main'),
      source('git@git.example:org/gitops.git', 'HEAD'),
      source('https://git.example/org/gitops/', 'v1.2.0'),
    ]);
    expect(calls).toEqual([{ url: GITOPS, auth: { token: 'tok' } }]);
    expect(repos.read).toEqual(['git.example/org/gitops']);
  });

  it('never contacts a repository that is not in the fleet file', async () => {
    const { repos, calls } = await read([source('https://elsewhere.example/x/y', 'main')]);
    expect(calls).toEqual([]);
    expect(repos.resolve(source('https://elsewhere.example/x/y', 'main'))).toEqual({ kind: 'unlisted' });
  });

  it.each([
    ['HEAD resolves through the default branch', 'HEAD', A, 'refs/heads/main', 'default-branch'],
    ['a branch resolves by name', 'release', B, 'refs/heads/release', 'ref'],
    ['a semver constraint resolves to the highest matching tag', '^1.0.0', D, 'refs/tags/v1.10.0', 'semver'],
    ['a commit SHA is itself', C, C, undefined, 'commit'],
  ])('%s', async (_name, targetRevision, sha, ref, via) => {
    const { repos } = await read([source(GITOPS, targetRevision)]);
    const resolution = repos.resolve(source(GITOPS, targetRevision));
    expect(resolution).toMatchObject({
      kind: 'resolved',
      repoKey: 'git.example/org/gitops',
      head: 'refs/heads/main',
    });
    expect(resolution.kind === 'resolved' && resolution.resolved).toEqual({
      found: true,
      sha,
      via,
      ...(ref === undefined ? {} : { ref }),
    });
  });

  it('resolves a revision the repository does not have to unknown', async () => {
    const { repos } = await read([source(GITOPS, 'gone')]);
    expect(repos.resolve(source(GITOPS, 'gone'))).toEqual({ kind: 'unknown', reason: 'unknown-revision' });
  });

  it('reports a repository that cannot be listed and resolves its sources to unknown', async () => {
    const broken = source('https://git.example/org/broken', 'main');
    const { repos } = await read([broken, source(GITOPS, 'main')]);
    expect(repos.failed).toEqual([
      { repo: 'git.example/org/broken', error: 'listing refs of git.example/org/broken: HTTP 500' },
    ]);
    expect(repos.resolve(broken)).toMatchObject({ kind: 'unknown' });
    expect(repos.resolve(source(GITOPS, 'main'))).toMatchObject({ kind: 'resolved' });
  });

  it('does not treat Helm chart or OCI sources as Git revisions', async () => {
    const { repos, calls } = await read([
      source('https://charts.example/stable', '1.2.3', { chart: 'nginx' }),
      source('oci://registry.example/charts', '1.0.0', { repoKey: undefined }),
    ]);
    expect(calls).toEqual([]);
    expect(repos.resolve(source('https://charts.example/stable', '1.2.3', { chart: 'nginx' }))).toEqual({
      kind: 'not-git',
    });
  });
});
