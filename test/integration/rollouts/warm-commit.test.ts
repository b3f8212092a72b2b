import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HttpClient } from 'isomorphic-git';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBareRepo } from '../../../infra/local/git-repos.js';
import type { RepositoryConfig } from '../../../lib/fleet/fleet-config.js';
import { createGitHttpClient } from '../../../lib/git/http-client.js';
import { createGitReaderPool, type GitReader } from '../../../lib/git/manifests.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { createMatchIndexCache } from '../../../lib/matching/index-cache.js';
import { createWarmCommit } from '../../../lib/rollouts/warm-commit.js';
import type { PushEvent } from '../../../lib/webhook/push-event.js';
import { startTestGitHost, type TestGitHost } from '../../helpers/git.js';
import { githubPushEvent } from '../../helpers/push-event.js';

// A warm fan-out container matches the push against its last listing of the cluster as the work item
// starts, and where an app it refreshes reads the pushed repository from Git (as the preflight will),
// starts the commit's fetch then instead of after the listing. Real parts: `git http-backend` over smart
// HTTP, the reader pool, the match index cache.

describe('the commit fetched ahead of the listing', () => {
  let host: TestGitHost;
  let cacheDir: string;
  let sha: string;
  let repoUrl: string;
  beforeAll(async () => {
    host = await startTestGitHost();
    cacheDir = await mkdtemp(join(tmpdir(), 'warm-commit-'));
    sha = await createBareRepo(host.root, 'apps', {
      'apps/web/deployment.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web }\n',
      'apps/api/deployment.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: api }\n',
    });
    repoUrl = host.url('apps');
  });
  afterAll(async () => {
    await host?.close();
    await rm(cacheDir, { recursive: true, force: true });
  });

  // Each app's manifests are its path alone (`manifest-generate-paths: .`): a push elsewhere misses it.
  const app = (name: string, source: Record<string, unknown>) => ({
    cluster: 'hub',
    kind: 'Application' as const,
    raw: {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: {
        name,
        namespace: 'argocd',
        uid: `u-${name}`,
        resourceVersion: '1',
        annotations: { 'argocd.argoproj.io/manifest-generate-paths': '.' },
      },
      spec: {
        project: 'default',
        destination: { server: 'https://kubernetes.default.svc' },
        source: { repoURL: repoUrl, targetRevision: 'HEAD', ...source },
      },
    },
  });
  const push = (over: Partial<PushEvent> = {}) =>
    githubPushEvent({
      repo: { fullName: 'apps', webUrl: repoUrl.replace(/\.git$/, ''), urls: [repoUrl] },
      after: sha,
      changedFiles: { known: true, files: ['apps/web/deployment.yaml'] },
      ...over,
    });

  /** A pool whose fetches are counted, a session of it, and the warm function over a cache of listings. */
  const world = (
    options: {
      listed?: ReturnType<typeof app>[];
      renders?: boolean;
      repositories?: readonly RepositoryConfig[];
      credentials?: () => Promise<undefined>;
    } = {},
  ) => {
    let fetches = 0;
    const http = createGitHttpClient({ timeoutMs: 5_000, maxResponseBytes: 10_000_000 });
    const counted: HttpClient = {
      request: (request) => {
        if (request.method === 'POST' && request.url.endsWith('/git-upload-pack')) fetches++;
        return http.request(request);
      },
    };
    const repositories = options.repositories ?? [{ url: repoUrl }];
    const pool = createGitReaderPool({
      repositories: repositories.map((r) => r.url),
      cacheDir,
      http: counted,
    });
    const session = pool.session();
    const asked: string[] = [];
    const git: Pick<GitReader, 'kept' | 'prefetch'> = {
      kept: session.kept,
      prefetch: (request) => {
        asked.push(request.repo.url);
        session.prefetch(request);
      },
    };
    const cache = createMatchIndexCache();
    if (options.listed !== undefined) cache.indexFor('hub', options.listed);
    const logger = createMemoryLogger();
    const warm = createWarmCommit({
      repositories,
      lastIndex: cache.last,
      renders: () => options.renders === true,
      git,
      credentials: options.credentials ?? (async () => undefined),
      logger,
    });
    return { warm, session, pool, asked, logger, fetches: () => fetches };
  };
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const until = async (ok: () => boolean) => {
    for (let i = 0; i < 500 && !ok(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  };

  it('fetches the commit an app of the last listing refreshes at, once, and the read then uses it', async () => {
    const w = world({ listed: [app('web', { path: 'apps/web' }), app('api', { path: 'apps/api' })] });
    try {
      w.warm('hub', push());
      await turn();
      expect(w.asked).toEqual([repoUrl]);
      expect(w.session.kept(repoUrl, sha)).toBe(true);
      await until(() => w.fetches() === 1);
      expect(w.fetches()).toBe(1);
      // A second work item of the commit in this container: kept, nothing matched or asked again.
      w.warm('hub', push());
      await turn();
      expect(w.asked).toEqual([repoUrl]);
      const set = await w.session.readManifests({ repo: { url: repoUrl }, sha, path: 'apps/web' });
      expect(set.documents.map((d) => d.path)).toEqual(['apps/web/deployment.yaml']);
      expect(w.fetches()).toBe(1);
    } finally {
      await w.session.close();
      await w.pool.close();
    }
  });

  // Every case but the cold container has web listed; each would fetch ahead but for what it names.
  it.each([
    ['a cold container (no listing of the cluster yet)', false, {}, {}],
    ['a cluster whose preflight Argo CD renders', true, { renders: true }, {}],
    [
      'a push no listed app refreshes at',
      true,
      {},
      { changedFiles: { known: true, files: ['docs/README.md'] } },
    ],
    ['an image push', true, {}, { image: { host: 'ghcr.io', repository: 'acme/web', tag: '1.2.3' } }],
    ['a deleted branch', true, {}, { deleted: true }],
  ] as const)('fetches nothing ahead for %s', async (_name, listed, options, over) => {
    const w = world({ ...options, ...(listed ? { listed: [app('web', { path: 'apps/web' })] } : {}) });
    try {
      w.warm('hub', push(over as Partial<PushEvent>));
      await turn();
      expect(w.asked).toEqual([]);
      expect(w.session.kept(repoUrl, sha)).toBe(false);
    } finally {
      await w.session.close();
      await w.pool.close();
    }
  });

  it('fetches nothing ahead for a Helm chart, a ref source, or a repository the fleet file does not list', async () => {
    const charts = world({
      listed: [
        app('chart', { chart: 'web', path: undefined, targetRevision: '1.0.0' }),
        app('values', { ref: 'values', path: undefined }),
      ],
    });
    const unlisted = world({
      listed: [app('web', { path: 'apps/web' })],
      repositories: [{ url: 'https://github.com/acme/other.git' }],
    });
    try {
      charts.warm('hub', push({ changedFiles: { known: false, reason: 'truncated' } }));
      unlisted.warm('hub', push());
      await turn();
      expect(charts.asked).toEqual([]);
      expect(unlisted.asked).toEqual([]);
    } finally {
      for (const w of [charts, unlisted]) {
        await w.session.close();
        await w.pool.close();
      }
    }
  });

  it('leaves a fetch that fails to the read that follows, which fetches again and reports it', async () => {
    // A Git host that accepts connections and closes them at once.
    const down = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    const port = (down.address() as { port: number }).port;
    const url = `http://127.0.0.1:${port}/apps.git`;
    const listed = [app('web', { path: 'apps/web' })].map((o) => ({
      ...o,
      raw: { ...o.raw, spec: { ...o.raw.spec, source: { ...o.raw.spec.source, repoURL: url } } },
    }));
    const w = world({ listed, repositories: [{ url }] });
    try {
      w.warm('hub', push({ repo: { fullName: 'apps', webUrl: url.replace(/\.git$/, ''), urls: [url] } }));
      await turn();
      expect(w.asked).toEqual([url]);
      await until(() => !w.session.kept(url, sha));
      expect(w.session.kept(url, sha)).toBe(false);
      await expect(w.session.readManifests({ repo: { url }, sha, path: 'apps/web' })).rejects.toThrow();
    } finally {
      await w.session.close();
      await w.pool.close();
      await new Promise<void>((resolve) => down.close(() => resolve()));
    }
  });

  it('never throws: failing credentials, a closed session', async () => {
    const w = world({
      listed: [app('web', { path: 'apps/web' })],
      credentials: () => Promise.reject(new Error('secret not found')),
    });
    try {
      expect(() => w.warm('hub', push())).not.toThrow();
      await turn();
      expect(w.session.kept(repoUrl, sha)).toBe(false);
    } finally {
      await w.session.close();
    }
    // A session closed (its invocation over) starts no fetch: eviction between sessions must not meet one.
    w.session.prefetch({ repo: { url: repoUrl }, sha });
    expect(w.session.kept(repoUrl, sha)).toBe(false);
    await w.pool.close();
  });
});
