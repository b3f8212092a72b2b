import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bareRepoPath,
  commitFiles,
  createBareRepo,
  git,
  setDefaultBranch,
  tag,
} from '../../../infra/local/git-repos.js';
import { UpstreamError } from '../../../lib/errors.js';
import { createGitReader } from '../../../lib/git/manifests.js';
import { listRemoteRefs, resolveRevision } from '../../../lib/git/remote-refs.js';
import { createRepoAllowList, RepoNotAllowedError } from '../../../lib/git/repo-url.js';
import { startFailingOnceV2Proxy, startTestGitHost, type TestGitHost } from '../../helpers/git.js';

describe('listRemoteRefs against git http-backend', () => {
  let host: TestGitHost;
  let initial: string;
  let tip: string;
  let annotated: string;

  beforeAll(async () => {
    host = await startTestGitHost({ auth: { token: 'tok-123' } });
    initial = await createBareRepo(
      host.root,
      'fleet',
      { 'a.yaml': 'kind: A\n' },
      { branch: 'trunk', tags: ['v1.0.0'] },
    );
    await commitFiles(host.root, 'fleet', {
      branch: 'release/2.x',
      changes: { 'b.yaml': 'kind: B\n' },
      message: 'r',
    });
    annotated = await tag(host.root, 'fleet', {
      tag: 'v2.0.0',
      target: 'refs/heads/release/2.x',
      message: 'two',
    });
    tip = (await commitFiles(host.root, 'fleet', { changes: { 'c.yaml': 'kind: C\n' }, message: 'c' })).after;
  });
  afterAll(async () => {
    await host.close();
  });

  const repo = () => ({ url: host.url('fleet'), auth: { token: 'tok-123' } });
  const options = () => ({ allowList: createRepoAllowList([host.url('fleet')]) });

  it('lists branches and tags with the default branch from HEAD in one ls-refs', async () => {
    host.server.resetRequests();
    const remote = await listRemoteRefs(repo(), options());
    expect(remote.head).toBe('refs/heads/trunk');
    expect(remote.refs.get('refs/heads/trunk')).toBe(tip);
    expect(remote.refs.get('refs/tags/v1.0.0')).toBe(initial);
    expect([...remote.refs.keys()].sort()).toEqual([
      'refs/heads/release/2.x',
      'refs/heads/trunk',
      'refs/tags/v1.0.0',
      'refs/tags/v2.0.0',
    ]);
    const lsRefs = host.server.requests.filter((r) => r.method === 'POST');
    expect(lsRefs).toHaveLength(1);
    expect(lsRefs[0]?.protocol).toBe('version=2');
  });

  it('peels an annotated tag to the commit it names', async () => {
    const remote = await listRemoteRefs(repo(), options());
    expect(remote.refs.get('refs/tags/v2.0.0')).toBe(remote.refs.get('refs/heads/release/2.x'));
    expect(remote.refs.get('refs/tags/v2.0.0')).not.toBe(annotated);
  });

  it('feeds resolveRevision: HEAD follows the default branch when it changes', async () => {
    await setDefaultBranch(host.root, 'fleet', 'release/2.x');
    const remote = await listRemoteRefs(repo(), options());
    await setDefaultBranch(host.root, 'fleet', 'trunk');
    expect(resolveRevision(remote, 'HEAD')).toMatchObject({ found: true, ref: 'refs/heads/release/2.x' });
  });

  it('fails with an auth error when the host refuses the credentials sent with the listing', async () => {
    host.server.resetRequests();
    const error = await listRemoteRefs({ url: host.url('fleet'), auth: { token: 'wrong' } }, options()).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ code: 'git-auth', retryable: false });
    expect((error as Error).message).not.toContain('wrong');
    // One request: the v2 listing carries the credentials from the start, and a 401 is the host's answer
    // the v1 way too.
    expect(host.server.requests.map((r) => r.status)).toEqual([401]);
  });

  it('fails with an auth error when no credentials are configured for a private repository', async () => {
    const error = await listRemoteRefs({ url: host.url('fleet') }, options()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'git-auth', upstreamStatus: 401 });
  });

  it('never contacts a repository that is not in the allow-list', async () => {
    host.server.resetRequests();
    const error = await listRemoteRefs(repo(), {
      allowList: createRepoAllowList(['https://github.com/org/other']),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RepoNotAllowedError);
    expect(host.server.requests).toEqual([]);
  });

  it('reports a repository the host does not have as not found', async () => {
    const url = host.url('missing');
    const error = await listRemoteRefs(
      { url, auth: { token: 'tok-123' } },
      { allowList: createRepoAllowList([url]) },
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'git-not-found', retryable: false });
  });

  it('does not follow a redirect, which could lead off the allow-list', async () => {
    const { createServer } = await import('node:http');
    const redirecting = createServer((_req, res) => {
      res.writeHead(301, { Location: `${host.url('fleet')}/info/refs?service=git-upload-pack` }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(redirecting.address() as { port: number }).port}/moved.git`;
    host.server.resetRequests();
    try {
      const error = await listRemoteRefs({ url }, { allowList: createRepoAllowList([url]) }).catch(
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: 'git-redirect', upstreamStatus: 301 });
      expect(host.server.requests).toEqual([]);
    } finally {
      redirecting.close();
    }
  });

  it('fails a listing whose answer breaks off midway, retryable, instead of trusting the refs before the cut', async () => {
    const { createServer } = await import('node:http');
    const line = (text: string) => `${(text.length + 4).toString(16).padStart(4, '0')}${text}`;
    let asked = 0;
    const cutting = createServer((req, res) => {
      asked += 1;
      req.resume();
      // Two refs of a v2 listing, no flush, then the connection is dropped.
      res.writeHead(200, { 'Content-Type': 'application/x-git-upload-pack-result' });
      res.write(line(`${'a'.repeat(40)} refs/heads/main\n`) + line(`${'b'.repeat(40)} refs/tags/v1\n`));
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await new Promise<void>((resolve) => cutting.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(cutting.address() as { port: number }).port}/cut.git`;
    try {
      const error = await listRemoteRefs({ url }, { allowList: createRepoAllowList([url]) }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error).toMatchObject({ code: 'git-unreachable', retryable: true });
      // Not taken for a host that does not speak v2: nothing was asked the v1 way.
      expect(asked).toBe(1);
    } finally {
      cutting.close();
    }
  });

  it('gives up on a host that does not answer within the timeout', async () => {
    const { createServer } = await import('node:net');
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}/x.git`;
    try {
      const error = await listRemoteRefs(
        { url },
        { allowList: createRepoAllowList([url]), timeoutMs: 200 },
      ).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'git-timeout', retryable: true });
    } finally {
      silent.close();
    }
  });
});

describe("a reader's remoteRef: the pushed ref alone, not the repository's every ref", () => {
  let host: TestGitHost;
  let main: string;
  let sibling: string;

  beforeAll(async () => {
    host = await startTestGitHost({});
    main = await createBareRepo(host.root, 'busy', { 'a.yaml': 'kind: A\n' }, { branch: 'main' });
    sibling = (
      await commitFiles(host.root, 'busy', {
        branch: 'main-2',
        changes: { 'b.yaml': 'kind: B\n' },
        message: 'b',
      })
    ).after;
    // A repository with a pull-request history: GitHub lists refs/pull/<n>/head and /merge to anyone who asks.
    const input = Array.from({ length: 3_000 }, (_, i) => `create refs/pull/${i}/head ${main}\n`).join('');
    await git(['update-ref', '--stdin'], { gitDir: bareRepoPath(host.root, 'busy'), input });
  });
  afterAll(async () => {
    await host.close();
  });

  const answered = () =>
    host.server.requests.filter((r) => r.method === 'POST').reduce((sum, r) => sum + r.bytes, 0);

  it('answers a branch from a listing of that name only, once per session', async () => {
    const reader = createGitReader({ repositories: [host.url('busy')] });
    const repo = { url: host.url('busy') };
    host.server.resetRequests();
    expect(await reader.remoteRef(repo, 'refs/heads/main')).toBe(main);
    const narrow = answered();
    expect(await reader.remoteRef(repo, 'refs/heads/main')).toBe(main);
    expect(answered()).toBe(narrow);
    // A name the prefix also matches is another branch; a ref the host does not have is none.
    expect(await reader.remoteRef(repo, 'refs/heads/main-2')).toBe(sibling);
    expect(await reader.remoteRef(repo, 'refs/heads/gone')).toBeUndefined();
    host.server.resetRequests();
    const all = await reader.listRemoteRefs(repo);
    expect(all.head).toBe('refs/heads/main');
    expect([...all.refs.keys()].sort()).toEqual(['refs/heads/main', 'refs/heads/main-2']);
    // The whole listing asks for HEAD, branches and tags (three ref-prefix lines in one ls-refs), so the
    // 3,000 pull-request refs are not sent either.
    expect(host.server.requests.map((r) => `${r.method} ${r.protocol}`)).toEqual(['POST version=2']);
    expect(answered()).toBeLessThan(1_000);
    expect(narrow).toBeLessThan(1_000);
    await reader.close();
  });
});

describe.each([
  ['speaking v0/v1 only', 'v1'],
  ['failing a protocol v2 listing once', 'flaky'],
] as const)('listing the refs of a host %s', (_, kind) => {
  let host: TestGitHost;
  let main: string;
  let annotated: string;
  beforeAll(async () => {
    host = await startTestGitHost({ protocolV2: kind !== 'v1' });
    main = await createBareRepo(
      host.root,
      'old',
      { 'a.yaml': 'kind: A\n' },
      { branch: 'main', tags: ['v1'] },
    );
    annotated = await tag(host.root, 'old', { tag: 'v2', target: 'refs/heads/main', message: 'two' });
    await commitFiles(host.root, 'old', {
      branch: 'main-2',
      changes: { 'b.yaml': 'kind: B\n' },
      message: 'b',
    });
    const input = Array.from({ length: 3_000 }, (_, i) => `create refs/pull/${i}/head ${main}\n`).join('');
    await git(['update-ref', '--stdin'], { gitDir: bareRepoPath(host.root, 'old'), input });
  });
  afterAll(async () => {
    await host.close();
  });

  it('gives the same branches, tags and HEAD the v1 way, and asks the v2 way again only where it may answer', async () => {
    const proxy = kind === 'flaky' ? await startFailingOnceV2Proxy(host) : undefined;
    const url = proxy?.url('old') ?? host.url('old');
    const options = { allowList: createRepoAllowList([url]) };
    const seen = () => {
      if (proxy !== undefined) return proxy.seen.splice(0);
      const requests = host.server.requests.map(
        (r) => `${r.method} ${r.protocol === 'version=2' ? 'v2' : 'v1'}`,
      );
      host.server.resetRequests();
      return requests;
    };
    try {
      host.server.resetRequests();
      const remote = await listRemoteRefs({ url }, options);
      expect(remote.head).toBe('refs/heads/main');
      expect(remote.refs.get('refs/tags/v2')).toBe(main);
      expect(remote.refs.get('refs/tags/v2')).not.toBe(annotated);
      expect([...remote.refs.keys()].sort()).toEqual([
        'refs/heads/main',
        'refs/heads/main-2',
        'refs/tags/v1',
        'refs/tags/v2',
      ]);
      // The v2 try first (a v1 host reads it as a v1 request and fails; the flaky one answers 503), then the
      // v1 listing (isomorphic-git: the advertisement, then, where v2 is spoken, its ls-refs).
      const first = seen();
      expect(first[0]).toBe('POST v2');
      expect(first.slice(1)).toEqual(kind === 'v1' ? ['GET v2'] : ['GET v2', 'POST v2']);
      // A prefix is filtered here when the host sent every ref: the pull-request refs go, main-2 stays (it
      // starts with the prefix too; remoteRef takes the exact name).
      const narrow = await listRemoteRefs({ url }, { ...options, prefix: 'refs/heads/main' });
      expect([...narrow.refs.keys()].sort()).toEqual(['refs/heads/main', 'refs/heads/main-2']);
      expect(narrow.head).toBeUndefined();
      // The v1-only host is remembered; the one that failed once is asked the v2 way in one request again.
      expect(seen()).toEqual(kind === 'v1' ? ['GET v2'] : ['POST v2']);
    } finally {
      await proxy?.close();
    }
  });
});
