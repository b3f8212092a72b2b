import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareRepoPath, commitFiles, createBareRepo, git } from '../../../infra/local/git-repos.js';
import { createGitReaderPool } from '../../../lib/git/manifests.js';
import { startFailingOnceV2Proxy, startTestGitHost, type TestGitHost } from '../../helpers/git.js';

// A commit is fetched by its SHA in one protocol v2 request, without the host's ref advertisement (isomorphic-git's
// own fetch reads every ref first: a repository's pull-request refs make that megabytes); a host that does not
// speak v2 is fetched the v1 way, with the same result.

const files = (tag: string) => {
  const out: Record<string, string> = {};
  for (let i = 0; i < 50; i++)
    out[`apps/svc-${i}/deploy.yaml`] =
      `kind: Deployment\nmetadata: { name: svc-${i} }\nspec: { template: { spec: { containers: [{ name: app, image: "svc-${i}:${i === 7 ? tag : '1.0'}" }] } } }\n`;
  return out;
};

/** A warm container's reader pool, and apps/svc-7's objects at a commit (as JSON) through a session of it. */
function svc7Reader(url: string) {
  const pool = createGitReaderPool({ repositories: [url] });
  const read = async (sha: string) => {
    const session = pool.session();
    try {
      const set = await session.readManifests({ repo: { url }, sha, path: 'apps/svc-7' });
      return JSON.stringify(set.documents.map((d) => d.doc));
    } finally {
      await session.close();
    }
  };
  return { pool, read };
}

describe.each([
  ['a host speaking protocol v2', true],
  ['a host speaking v0/v1 only', false],
])('fetching a commit from %s', (_, v2) => {
  let host: TestGitHost;
  let first: string;
  beforeAll(async () => {
    host = await startTestGitHost({ protocolV2: v2 });
    first = await createBareRepo(host.root, 'busy', files('1.0'), { branch: 'main' });
    // GitHub lists two refs/pull/* per pull request to anyone who reads every ref.
    const input = Array.from({ length: 3_000 }, (_, i) => `create refs/pull/${i}/head ${first}\n`).join('');
    await git(['update-ref', '--stdin'], { gitDir: bareRepoPath(host.root, 'busy'), input });
  });
  afterAll(async () => {
    await host.close();
  });

  it('reads the commit and the next one on top of it, asking for the refs only where v2 is not spoken', async () => {
    const { pool, read } = svc7Reader(host.url('busy'));
    host.server.resetRequests();
    expect(await read(first)).toContain('svc-7:1.0');
    const firstFetch = [...host.server.requests];
    const { after } = await commitFiles(host.root, 'busy', {
      branch: 'main',
      changes: files('2.0'),
      message: 'svc-7 2.0',
    });
    host.server.resetRequests();
    expect(await read(after)).toContain('svc-7:2.0');
    const nextFetch = [...host.server.requests];
    const advertisements = [...firstFetch, ...nextFetch].filter((r) => r.method === 'GET');
    if (v2) {
      // One POST each, no ref advertisement; the next commit's pack holds only what it adds.
      expect(firstFetch.map((r) => `${r.method} ${r.protocol}`)).toEqual(['POST version=2']);
      expect(nextFetch.map((r) => `${r.method} ${r.protocol}`)).toEqual(['POST version=2']);
      expect(nextFetch[0]?.bytes).toBeLessThan(3_000);
      expect(advertisements).toEqual([]);
    } else {
      // The v2 try is read as a v1 request and fails; then the advertisement of every ref, then the wants.
      // The container remembers the host: the next commit is fetched the v1 way without trying v2 again.
      expect(firstFetch.filter((r) => r.protocol === 'version=2')).toHaveLength(1);
      expect(nextFetch.filter((r) => r.protocol === 'version=2')).toEqual([]);
      expect(advertisements.length).toBeGreaterThan(0);
      expect(Math.min(...advertisements.map((r) => r.bytes))).toBeGreaterThan(100_000);
    }
    await pool.close();
  });
});

describe('a host failing a protocol v2 fetch once', () => {
  let host: TestGitHost;
  let first: string;
  beforeAll(async () => {
    host = await startTestGitHost({});
    first = await createBareRepo(host.root, 'flaky', files('1.0'), { branch: 'main' });
  });
  afterAll(async () => {
    await host.close();
  });

  it('is fetched the v1 way that time and asked the v2 way again the next', async () => {
    // In front of the host: the first v2 POST is answered 503 (a server error says nothing of the protocol).
    const proxy = await startFailingOnceV2Proxy(host);
    const { seen } = proxy;
    try {
      const url = proxy.url('flaky');
      const { pool, read } = svc7Reader(url);
      expect(await read(first)).toContain('svc-7:1.0');
      expect(seen).toEqual(['POST v2', 'GET v1', 'POST v1']);
      const { after } = await commitFiles(host.root, 'flaky', {
        branch: 'main',
        changes: files('2.0'),
        message: 'svc-7 2.0',
      });
      seen.length = 0;
      expect(await read(after)).toContain('svc-7:2.0');
      expect(seen).toEqual(['POST v2']);
      await pool.close();
    } finally {
      await proxy.close();
    }
  });
});
