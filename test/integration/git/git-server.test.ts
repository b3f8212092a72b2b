import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, createBareRepo, git, tag } from '../../../infra/local/git-repos.js';
import { startTestGitHost, type TestGitHost } from '../../helpers/git.js';

const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;
const lsRefsBody = `${pkt('command=ls-refs\n')}0001${pkt('symrefs\n')}${pkt('peel\n')}0000`;

describe('the local git server (git http-backend behind Node)', () => {
  let host: TestGitHost;
  let initial: string;

  beforeAll(async () => {
    host = await startTestGitHost({ auth: { username: 'bot', password: 'pw' } });
    initial = await createBareRepo(host.root, 'demo', { 'apps/a.yaml': 'kind: A\n' }, { tags: ['v1.0.0'] });
  });
  afterAll(async () => {
    await host.close();
  });

  it('answers 401 with a WWW-Authenticate challenge when credentials are missing or wrong', async () => {
    for (const headers of [{}, { Authorization: `Basic ${Buffer.from('bot:nope').toString('base64')}` }]) {
      const res = await fetch(`${host.url('demo')}/info/refs?service=git-upload-pack`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
      await res.body?.cancel();
    }
  });

  it('speaks protocol v2 when the client asks for it in Git-Protocol', async () => {
    const res = await fetch(`${host.url('demo')}/info/refs?service=git-upload-pack`, {
      headers: {
        Authorization: `Basic ${Buffer.from('bot:pw').toString('base64')}`,
        'Git-Protocol': 'version=2',
      },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('version 2');
  });

  it('inflates a gzip request body before the backend reads it', async () => {
    const res = await fetch(`${host.url('demo')}/git-upload-pack`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from('bot:pw').toString('base64')}`,
        'Git-Protocol': 'version=2',
        'Content-Type': 'application/x-git-upload-pack-request',
        'Content-Encoding': 'gzip',
      },
      body: gzipSync(lsRefsBody),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain(`${initial} refs/heads/main`);
    expect(text).toContain('symref-target:refs/heads/main');
  });

  it('serves the real git client, which fetches a commit by SHA', async () => {
    const second = await commitFiles(host.root, 'demo', {
      changes: { 'apps/b.yaml': 'kind: B\n' },
      message: 'b',
    });
    await commitFiles(host.root, 'demo', { changes: { 'apps/c.yaml': 'kind: C\n' }, message: 'c' });
    const url = host.url('demo').replace('http://', 'http://bot:pw@');
    const clone = `${host.root}/clone.git`;
    await git(['init', '--quiet', '--bare', clone]);
    await git(['fetch', '--quiet', '--depth=1', url, second.after], { gitDir: clone });
    expect(await git(['cat-file', '-t', second.after], { gitDir: clone })).toBe('commit');
  });

  it('counts every request, the refused ones included', async () => {
    host.server.resetRequests();
    await fetch(`${host.url('demo')}/info/refs?service=git-upload-pack`).then((res) => res.body?.cancel());
    expect(host.server.requests).toEqual([
      {
        method: 'GET',
        path: '/demo.git/info/refs',
        service: 'git-upload-pack',
        protocol: undefined,
        status: 401,
        bytes: 0,
      },
    ]);
  });
});

describe('the repository helpers', () => {
  let host: TestGitHost;
  beforeAll(async () => {
    host = await startTestGitHost();
  });
  afterAll(async () => {
    await host.close();
  });

  it('reports a commit as a push would: before, after and the changed paths', async () => {
    const first = await createBareRepo(host.root, 'r', { 'a.yaml': '1', 'b.yaml': '1' });
    const pushed = await commitFiles(host.root, 'r', {
      changes: { 'a.yaml': '2', 'b.yaml': null, 'c/d.yaml': 'new' },
      message: 'change',
      author: { name: 'Ada', email: 'ada@example.test' },
    });
    expect(pushed.before).toBe(first);
    expect(pushed.after).toMatch(/^[0-9a-f]{40}$/);
    expect(pushed.changed).toEqual(['a.yaml', 'b.yaml', 'c/d.yaml']);
    expect(await git(['log', '-1', '--format=%an %s', pushed.after], { gitDir: `${host.root}/r.git` })).toBe(
      'Ada change',
    );
  });

  it('starts a new branch from HEAD and reports it created (zero before) with only the new paths', async () => {
    const head = await git(['rev-parse', 'HEAD'], { gitDir: `${host.root}/r.git` });
    const pushed = await commitFiles(host.root, 'r', {
      branch: 'feature/x',
      changes: { 'x.yaml': 'x' },
      message: 'x',
    });
    expect(pushed.before).toBe('0'.repeat(40));
    expect(pushed.changed).toEqual(['x.yaml']);
    expect(await git(['rev-parse', `${pushed.after}^`], { gitDir: `${host.root}/r.git` })).toBe(head);
  });

  it('creates an annotated tag whose ref is the tag object, peeling to the commit', async () => {
    const head = await git(['rev-parse', 'HEAD'], { gitDir: `${host.root}/r.git` });
    const tagObject = await tag(host.root, 'r', { tag: 'v2.0.0', message: 'release' });
    expect(tagObject).not.toBe(head);
    expect(await git(['rev-parse', 'v2.0.0^{commit}'], { gitDir: `${host.root}/r.git` })).toBe(head);
  });
});
