import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, createBareRepo } from '../../../infra/local/git-repos.js';
import {
  createGitReader,
  createGitReaderPool,
  type GitReader,
  InvalidShaError,
} from '../../../lib/git/manifests.js';
import { RepoNotAllowedError } from '../../../lib/git/repo-url.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { startTestGitHost, type TestGitHost } from '../../helpers/git.js';

const externalSecret = (name: string, key: string) =>
  `apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: ${name}\nspec:\n  data:\n  - secretKey: k\n    remoteRef:\n      key: ${key}\n`;

const files = {
  'apps/web/base/kustomization.yaml':
    'resources:\n- deploy.yaml\n- ../../../shared/store.yaml\n- ../../../../escape.yaml\n',
  'apps/web/base/deploy.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n',
  'apps/web/prod/kustomization.yaml': 'resources:\n- ../base\n- es.yaml\n',
  'apps/web/prod/es.yaml': externalSecret('web-db', 'prod/web/db-v1'),
  'shared/store.yaml':
    'apiVersion: external-secrets.io/v1\nkind: ClusterSecretStore\nmetadata:\n  name: aws\n',
  'charts/api/Chart.yaml': 'apiVersion: v2\nname: api\nversion: 0.1.0\n',
  'charts/api/templates/es.yaml': 'kind: ExternalSecret\nmetadata:\n  name: {{ .Release.Name }}\n',
  'plain/a.yaml': 'kind: ConfigMap\nmetadata:\n  name: a\n',
  'plain/b.yaml': 'kind: ConfigMap\nmetadata:\n  name: b\n',
  'plain/c.yaml': 'kind: ConfigMap\nmetadata:\n  name: c\n',
};

describe('reading manifests at a commit over smart HTTP', () => {
  let host: TestGitHost;
  let cacheDir: string;
  let first: string;
  let second: string;
  let reader: GitReader;
  const auth = { token: 'repo-token' };

  beforeAll(async () => {
    host = await startTestGitHost({ auth });
    cacheDir = await mkdtemp(join(tmpdir(), 'git-reader-test-'));
    first = await createBareRepo(host.root, 'gitops', files);
    second = (
      await commitFiles(host.root, 'gitops', {
        changes: { 'apps/web/prod/es.yaml': externalSecret('web-db', 'prod/web/db-v2') },
        message: 'rotate',
      })
    ).after;
    await commitFiles(host.root, 'gitops', { changes: { 'apps/web/prod/es.yaml': null }, message: 'drop' });
  });
  afterAll(async () => {
    await host.close();
    await rm(cacheDir, { recursive: true, force: true });
  });

  const newReader = (options: Partial<Parameters<typeof createGitReader>[0]> = {}) =>
    createGitReader({ repositories: [host.url('gitops')], cacheDir, ...options });
  const repo = () => ({ url: host.url('gitops'), auth });

  it('reads a commit that is not the branch tip, by its SHA', async () => {
    reader = newReader();
    const set = await reader.readManifests({ repo: repo(), sha: second, path: 'apps/web/prod' });
    const es = set.documents.find((d) => d.doc.kind === 'ExternalSecret');
    expect(es?.path).toBe('apps/web/prod/es.yaml');
    expect(JSON.stringify(es?.doc)).toContain('prod/web/db-v2');
    const older = await reader.readManifests({ repo: repo(), sha: first, path: 'apps/web/prod' });
    expect(JSON.stringify(older.documents)).toContain('prod/web/db-v1');
    await reader.close();
  });

  it('keeps fetched commits across sessions of a pool, lists refs afresh per session, and evicts the oldest', async () => {
    const pool = createGitReaderPool({ repositories: [host.url('gitops')], cacheDir, keepCommits: 1 });
    const fetches = () =>
      host.server.requests.filter((r) => r.method === 'POST' && r.service === 'git-upload-pack').length;
    host.server.resetRequests();
    const one = pool.session();
    await one.readManifests({ repo: repo(), sha: second, path: 'apps/web/prod' });
    await one.listRemoteRefs(repo());
    await one.close();
    const afterFirst = fetches();
    expect(afterFirst).toBeGreaterThan(0);

    // The same commit in the next session (another work item of the push): no fetch; a new path is read
    // from the kept commit; the refs are listed again.
    const two = pool.session();
    const set = await two.readManifests({ repo: repo(), sha: second, path: 'apps/web/prod' });
    expect(JSON.stringify(set.documents)).toContain('prod/web/db-v2');
    expect((await two.readManifests({ repo: repo(), sha: second, path: 'plain' })).documents).toHaveLength(3);
    const refsBefore = host.server.requests.length;
    await two.listRemoteRefs(repo());
    expect(host.server.requests.length).toBeGreaterThan(refsBefore);
    expect(fetches()).toBe(afterFirst + 1);
    // A second commit goes over the bound of one: the older one is removed once the session ends.
    await two.readManifests({ repo: repo(), sha: first, path: 'apps/web/prod' });
    await two.close();
    const three = pool.session();
    const fetched = fetches();
    await three.readManifests({ repo: repo(), sha: first, path: 'plain' });
    expect(fetches()).toBe(fetched);
    await three.readManifests({ repo: repo(), sha: second, path: 'plain' });
    expect(fetches()).toBeGreaterThan(fetched);
    await three.close();
    await pool.close();
  });

  it("parses a file once per pool whatever commit it is read at: only the changed file's objects are new", async () => {
    const pool = createGitReaderPool({ repositories: [host.url('gitops')], cacheDir });
    const session = pool.session();
    const at = (sha: string) => session.readManifests({ repo: repo(), sha, path: 'apps/web/prod' });
    const docOf = (set: Awaited<ReturnType<typeof at>>, path: string) =>
      set.documents.find((d) => d.path === path)?.doc;
    const before = await at(first);
    const after = await at(second);
    // deploy.yaml (the base, through ../) and shared/store.yaml are the same text at both commits.
    for (const path of ['apps/web/base/deploy.yaml', 'shared/store.yaml']) {
      expect(docOf(before, path)).toBeDefined();
      expect(docOf(after, path)).toBe(docOf(before, path));
    }
    expect(docOf(after, 'apps/web/prod/es.yaml')).not.toBe(docOf(before, 'apps/web/prod/es.yaml'));
    expect(JSON.stringify(docOf(after, 'apps/web/prod/es.yaml'))).toContain('prod/web/db-v2');
    expect(JSON.stringify(docOf(before, 'apps/web/prod/es.yaml'))).toContain('prod/web/db-v1');
    await session.close();
    await pool.close();

    // Without the memo (keepParsedChars 0, as a one-invocation reader), each commit's read parses again.
    const bare = createGitReaderPool({ repositories: [host.url('gitops')], cacheDir, keepParsedChars: 0 });
    const again = bare.session();
    const one = await again.readManifests({ repo: repo(), sha: first, path: 'apps/web/prod' });
    const two = await again.readManifests({ repo: repo(), sha: second, path: 'apps/web/prod' });
    expect(docOf(two, 'shared/store.yaml')).toEqual(docOf(one, 'shared/store.yaml'));
    expect(docOf(two, 'shared/store.yaml')).not.toBe(docOf(one, 'shared/store.yaml'));
    await again.close();
    await bare.close();
  });

  /**
   * A repository of three app directories (apps/k's kustomization reads shared/), and a commit that changes
   * apps/b and shared/: apps/a and apps/k are the same trees at both commits.
   */
  const dirsRepo = async (name: string) => {
    await createBareRepo(host.root, name, {
      'apps/a/deploy.yaml': 'kind: ConfigMap\nmetadata:\n  name: a\n',
      'apps/b/deploy.yaml': 'kind: ConfigMap\nmetadata:\n  name: b\n',
      'apps/k/kustomization.yaml': 'resources:\n- ../../shared/store.yaml\n',
      'shared/store.yaml': 'kind: ConfigMap\nmetadata:\n  name: store-v1\n',
    });
    const changes = {
      'apps/b/deploy.yaml': 'kind: ConfigMap\nmetadata:\n  name: b2\n',
      'shared/store.yaml': 'kind: ConfigMap\nmetadata:\n  name: store-v2\n',
    };
    const { before, after } = await commitFiles(host.root, name, {
      changes,
      message: 'b and the shared store',
    });
    return { before, after, changed: Object.keys(changes) };
  };

  it('answers a directory the push left alone from the commit before, unless its read looked outside it', async () => {
    const { before, after } = await dirsRepo('dirs');
    const dirs = { url: host.url('dirs'), auth };
    const pool = createGitReaderPool({ repositories: [dirs.url], cacheDir });
    const session = pool.session();
    const at = (sha: string, path: string) => session.readManifests({ repo: dirs, sha, path });
    const names = (set: Awaited<ReturnType<typeof at>>) =>
      set.documents.map((d) => (d.doc.metadata as { name: string }).name);
    const [a1, b1, k1] = [await at(before, 'apps/a'), await at(before, 'apps/b'), await at(before, 'apps/k')];
    const [a2, b2, k2] = [await at(after, 'apps/a'), await at(after, 'apps/b'), await at(after, 'apps/k')];
    // apps/a is the same tree at both commits, and its read stayed inside it: the set read at `before`.
    expect(a2).toBe(a1);
    expect(names(a2)).toEqual(['a']);
    expect([names(b1), names(b2)]).toEqual([['b'], ['b2']]);
    // apps/k is the same tree too, but its kustomization reads shared/: read again, so the change shows.
    expect(k2).not.toBe(k1);
    expect([names(k1), names(k2)]).toEqual([['store-v1'], ['store-v2']]);
    // The directory's id goes with the path, the recursion and the bounds: another bound reads again.
    expect(await session.readManifests({ repo: dirs, sha: after, path: 'apps/a' }, { maxFiles: 7 })).not.toBe(
      a1,
    );
    await session.close();
    await pool.close();
  });

  it('answers a directory the push did not change from the commit before, without waiting for the fetch', async () => {
    const { before, after, changed } = await dirsRepo('since');
    const repo = { url: host.url('since'), auth };
    const pool = createGitReaderPool({ repositories: [repo.url], cacheDir });
    const session = pool.session();
    const names = (set: Awaited<ReturnType<typeof session.readManifests>>) =>
      set.documents.map((d) => (d.doc.metadata as { name: string }).name);
    const [a1, k1] = [
      await session.readManifests({ repo, sha: before, path: 'apps/a' }),
      await session.readManifests({ repo, sha: before, path: 'apps/k' }),
    ];
    await session.readManifests({ repo, sha: before, path: 'apps/b' });
    const fetches = () =>
      host.server.requests.filter((r) => r.path.startsWith('/since.git') && r.method === 'POST').length;
    const fetched = fetches();
    const at = (path: string) =>
      session.readManifests({ repo, sha: after, path, unchangedSince: { sha: before, files: changed } });
    // apps/a: no changed file under it, and its read stayed inside it: the set at `before`, nothing fetched.
    expect(await at('apps/a')).toBe(a1);
    expect(fetches()).toBe(fetched);
    // apps/b changed, apps/k reads shared/ (which changed): both read at `after`.
    expect(names(await at('apps/b'))).toEqual(['b2']);
    expect(fetches()).toBeGreaterThan(fetched);
    const k2 = await at('apps/k');
    expect(k2).not.toBe(k1);
    expect(names(k2)).toEqual(['store-v2']);
    // A list naming a file under apps/a sends its read to `after` (fetched, then found the same tree).
    const other = createGitReaderPool({ repositories: [repo.url], cacheDir });
    const again = other.session();
    await again.readManifests({ repo, sha: before, path: 'apps/a' });
    const beforeTouched = fetches();
    const touched = { sha: before, files: ['apps/a/deploy.yaml'] };
    const read = await again.readManifests({ repo, sha: after, path: 'apps/a', unchangedSince: touched });
    expect(names(read)).toEqual(['a']);
    expect(fetches()).toBeGreaterThan(beforeTouched);
    await again.close();
    await other.close();
    await session.close();
    await pool.close();
  });

  it('follows Kustomize resources through ../ within the repository and skips an escape', async () => {
    reader = newReader();
    const set = await reader.readManifests({ repo: repo(), sha: second, path: 'apps/web/prod' });
    expect(set.documents.map((d) => `${d.path}:${d.doc.kind}`)).toEqual([
      'apps/web/base/deploy.yaml:Deployment',
      'shared/store.yaml:ClusterSecretStore',
      'apps/web/prod/es.yaml:ExternalSecret',
    ]);
    expect(set.skipped).toEqual([{ path: '../../../../escape.yaml', message: 'outside the repository' }]);
    expect(set.errors).toEqual([]);
    await reader.close();
  });

  it('marks a Helm chart not rendered and parses none of its templates', async () => {
    reader = newReader();
    const set = await reader.readManifests({ repo: repo(), sha: second, path: 'charts/api' });
    expect(set).toEqual({ documents: [], notRendered: true, errors: [], skipped: [] });
    await reader.close();
  });

  it('stops at the configured file bound and records it', async () => {
    reader = newReader({ limits: { maxFiles: 2 } });
    const set = await reader.readManifests({ repo: repo(), sha: second, path: 'plain' });
    expect(set.documents).toHaveLength(2);
    expect(set.limitReached).toBe('files');
    const bytes = await reader.readManifests(
      { repo: repo(), sha: second, path: 'plain' },
      { maxFiles: 10, maxBytes: 30 },
    );
    expect(bytes.limitReached).toBe('bytes');
    await reader.close();
  });

  it('fetches each (repository, SHA) once per reader, however many apps read it', async () => {
    reader = newReader();
    host.server.resetRequests();
    await Promise.all([
      reader.readManifests({ repo: repo(), sha: second, path: 'apps/web/prod' }),
      reader.readManifests({ repo: repo(), sha: second, path: 'plain' }),
    ]);
    const afterOne = host.server.requests.length;
    await reader.readManifests({ repo: repo(), sha: second, path: 'charts/api' });
    expect(host.server.requests.length).toBe(afterOne);
    expect(host.server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    await reader.readManifests({ repo: repo(), sha: first, path: 'plain' });
    expect(host.server.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
    await reader.close();
  });

  it('removes what it fetched when closed', async () => {
    reader = newReader();
    await reader.readManifests({ repo: repo(), sha: second, path: 'plain' });
    const [dir] = (await readdir(cacheDir)).filter((name) => name.startsWith('git-reader-'));
    expect(dir).toBeDefined();
    await reader.close();
    expect(existsSync(join(cacheDir, dir ?? 'none'))).toBe(false);
  });

  it('fails with an auth error without credentials, and reads with them', async () => {
    reader = newReader();
    const error = await reader
      .readManifests({ repo: { url: host.url('gitops') }, sha: second, path: 'plain' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'git-auth', upstreamStatus: 401 });
    await reader.close();
    reader = newReader();
    expect((await reader.readManifests({ repo: repo(), sha: second, path: 'plain' })).documents).toHaveLength(
      3,
    );
    await reader.close();
  });

  it('refuses a URL outside the allow-list before any request', async () => {
    reader = newReader({ repositories: ['https://github.com/org/gitops'] });
    host.server.resetRequests();
    await expect(reader.readManifests({ repo: repo(), sha: second, path: 'plain' })).rejects.toThrow(
      RepoNotAllowedError,
    );
    await expect(reader.listRemoteRefs(repo())).rejects.toThrow(RepoNotAllowedError);
    expect(host.server.requests).toEqual([]);
    await reader.close();
  });

  it('refuses an abbreviated SHA, which could name a different commit later', async () => {
    reader = newReader();
    await expect(
      reader.readManifests({ repo: repo(), sha: second.slice(0, 7), path: 'plain' }),
    ).rejects.toThrow(InvalidShaError);
    await reader.close();
  });

  it('reports a commit the host does not have as not found', async () => {
    reader = newReader({ fallbackDepth: 5 });
    const error = await reader
      .readManifests({ repo: repo(), sha: 'e'.repeat(40), path: 'plain' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'git-commit-not-found', retryable: false });
    await reader.close();
  });

  it('aborts a pack larger than the configured bound', async () => {
    reader = newReader({ maxPackBytes: 200 });
    const error = await reader
      .readManifests({ repo: repo(), sha: second, path: 'plain' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'git-too-large', retryable: false });
    await reader.close();
  });

  it('lists refs once per repository per reader', async () => {
    reader = newReader();
    host.server.resetRequests();
    const [a, b] = await Promise.all([reader.listRemoteRefs(repo()), reader.listRemoteRefs(repo())]);
    expect(a).toBe(b);
    expect(host.server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    await reader.close();
  });
});

describe('reading from a host that refuses to send a commit by SHA', () => {
  let host: TestGitHost;
  let target: string;

  beforeAll(async () => {
    host = await startTestGitHost({ allowShaWants: false });
    await createBareRepo(host.root, 'strict', { 'm/a.yaml': 'kind: A\nmetadata:\n  name: one\n' });
    target = (
      await commitFiles(host.root, 'strict', {
        changes: { 'm/a.yaml': 'kind: A\nmetadata:\n  name: two\n' },
        message: 'two',
      })
    ).after;
    await commitFiles(host.root, 'strict', {
      changes: { 'm/a.yaml': 'kind: A\nmetadata:\n  name: three\n' },
      message: 'three',
    });
  });
  afterAll(async () => {
    await host.close();
  });

  it('falls back to the ref with some history and still reads the older commit', async () => {
    const logger = createMemoryLogger();
    const reader = createGitReader({ repositories: [host.url('strict')], logger });
    const set = await reader.readManifests({
      repo: { url: host.url('strict') },
      sha: target,
      path: 'm',
      ref: 'refs/heads/main',
    });
    expect(set.documents.map((d) => (d.doc.metadata as { name: string }).name)).toEqual(['two']);
    const fetched = logger.lines.find((l) => l.message === 'git commit fetched')?.fields;
    expect(fetched).toMatchObject({ via: 'ref', ms: expect.any(Number) });
    expect(fetched?.ms).toBeGreaterThanOrEqual(0);
    await reader.close();
  });

  it('fetches whole where the host refuses a seeded want, and on top of a held commit where it allows it', async () => {
    const logger = createMemoryLogger();
    const reader = createGitReader({ repositories: [host.url('strict')], logger });
    const read = async (sha: string) =>
      (
        await reader.readManifests({
          repo: { url: host.url('strict') },
          sha,
          path: 'm',
          ref: 'refs/heads/main',
        })
      ).documents.map((d) => (d.doc.metadata as { name: string }).name);
    const tipOf = async () =>
      (await reader.listRemoteRefs({ url: host.url('strict') })).refs.get('refs/heads/main') as string;
    const tip = await tipOf();
    expect(await read(tip)).toEqual(['three']);
    // No tip, and not in the held commit's objects: the seeded want is refused, so it is fetched whole.
    expect(await read(target)).toEqual(['two']);
    // A new tip may be wanted by SHA: fetched on top of the commit held last.
    const four = (
      await commitFiles(host.root, 'strict', {
        changes: { 'm/a.yaml': 'kind: A\nmetadata:\n  name: four\n' },
        message: 'four',
      })
    ).after;
    expect(await read(four)).toEqual(['four']);
    const fetched = logger.lines.filter((l) => l.message === 'git commit fetched').map((l) => l.fields);
    expect(fetched).toMatchObject([
      { sha: tip, via: 'sha' },
      { sha: target, via: 'ref' },
      { sha: four, via: 'sha', seededFrom: target },
    ]);
    expect(fetched.slice(0, 2).some((f) => f?.seededFrom !== undefined)).toBe(false);
    await reader.close();
  });

  it('says so when the commit is deeper in history than the fallback fetches', async () => {
    const reader = createGitReader({ repositories: [host.url('strict')], fallbackDepth: 1 });
    const error = await reader
      .readManifests({ repo: { url: host.url('strict') }, sha: target, path: 'm', ref: 'refs/heads/main' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'git-commit-not-found' });
    expect((error as Error).message).toContain('last 1 commits of refs/heads/main');
    await reader.close();
  });
});
