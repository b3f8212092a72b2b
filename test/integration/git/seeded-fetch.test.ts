import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, createBareRepo } from '../../../infra/local/git-repos.js';
import { MAX_SEED_PACKS } from '../../../lib/git/commit-fetch.js';
import { createGitReaderPool } from '../../../lib/git/manifests.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { startTestGitHost, type TestGitHost } from '../../helpers/git.js';

// A warm container's next commit of a repository is fetched on top of the last one it holds: the host is told
// `have` it and sends only the new objects, instead of the whole snapshot again for every push.

/** 200 services of two manifests each, every file different (no delta makes the snapshot small). */
function snapshot(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 200; i++) {
    files[`apps/svc-${i}/deployment.yaml`] =
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: svc-${i}\n  labels: { team: t${i % 7}, tier: "${(i * 7919) % 1000}" }\nspec:\n  replicas: ${1 + (i % 5)}\n  template:\n    spec:\n      containers: [{ name: app, image: "ghcr.io/example/svc-${i}:1.0.${i}" }]\n`;
    files[`apps/svc-${i}/service.yaml`] =
      `apiVersion: v1\nkind: Service\nmetadata: { name: svc-${i} }\nspec: { ports: [{ port: ${8000 + i} }] }\n`;
  }
  return files;
}

const image = (i: number, tag: string) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: svc-${i}\nspec:\n  template:\n    spec:\n      containers: [{ name: app, image: "ghcr.io/example/svc-${i}:${tag}" }]\n`;

describe('a new commit fetched on top of the one a reader pool holds', () => {
  let host: TestGitHost;
  let cacheDir: string;
  beforeAll(async () => {
    host = await startTestGitHost();
    cacheDir = await mkdtemp(join(tmpdir(), 'seeded-fetch-'));
  });
  afterAll(async () => {
    await host.close();
    await rm(cacheDir, { recursive: true, force: true });
  });

  let repos = 0;
  /** A fresh repository at its first commit, a pool reading it, and the bytes of each fetch's answer. */
  async function world() {
    const name = `gitops-${++repos}`;
    const first = await createBareRepo(host.root, name, snapshot());
    const lines = createMemoryLogger();
    const pool = createGitReaderPool({ repositories: [host.url(name)], cacheDir, logger: lines });
    const repo = { url: host.url(name) };
    let tags = 0;
    const commit = async (service: number) =>
      (
        await commitFiles(host.root, name, {
          changes: { [`apps/svc-${service}/deployment.yaml`]: image(service, `2.0.${++tags}`) },
          message: `bump ${service}`,
        })
      ).after;
    const fetchBytes = () =>
      host.server.requests
        .filter(
          (r) => r.path.startsWith(`/${name}.git`) && r.method === 'POST' && r.service === 'git-upload-pack',
        )
        .map((r) => r.bytes);
    const read = async (sha: string, service: number) => {
      const session = pool.session();
      try {
        return await session.readManifests({ repo, sha, path: `apps/svc-${service}` });
      } finally {
        await session.close();
      }
    };
    const seededFrom = () =>
      lines.lines.filter((l) => l.message === 'git commit fetched').map((l) => l.fields?.seededFrom);
    return { name, first, pool, commit, fetchBytes, read, seededFrom };
  }

  const imageOf = (set: Awaited<ReturnType<Awaited<ReturnType<typeof world>>['read']>>) =>
    JSON.stringify(set.documents.find((d) => d.doc.kind === 'Deployment')?.doc).match(/svc-\d+:[\d.]+/)?.[0];

  it('asks only for the objects the new commit adds, and reads it whole', async () => {
    const w = await world();
    expect(imageOf(await w.read(w.first, 3))).toBe('svc-3:1.0.3');
    const second = await w.commit(3);
    expect(imageOf(await w.read(second, 3))).toBe('svc-3:2.0.1');
    // An unchanged path at the new commit: its objects come from the seed's pack.
    expect(imageOf(await w.read(second, 150))).toBe('svc-150:1.0.150');
    const [full, next] = w.fetchBytes();
    expect(w.fetchBytes()).toHaveLength(2);
    expect(full).toBeGreaterThan(20_000);
    expect(next).toBeLessThan((full as number) / 20);
    expect(w.seededFrom()).toEqual([undefined, w.first]);
    await w.pool.close();
  });

  it('fetches the whole snapshot when the seed cannot serve (its packs gone), and reads it right', async () => {
    const w = await world();
    await w.read(w.first, 1);
    // The kept commit's directory lost its packs (a full /tmp, a cleaner): linking fails, nothing is lost.
    for (const dir of await readdir(cacheDir, { recursive: true }))
      if (dir.endsWith('objects/pack')) await rm(join(cacheDir, dir), { recursive: true, force: true });
    const second = await w.commit(1);
    expect(imageOf(await w.read(second, 1))).toBe('svc-1:2.0.1');
    expect(imageOf(await w.read(second, 2))).toBe('svc-2:1.0.2');
    const [full, again] = w.fetchBytes();
    expect(again).toBeGreaterThan((full as number) / 2);
    expect(w.seededFrom()).toEqual([undefined, undefined]);
    await w.pool.close();
  });

  it('reads commits that flip a file back and forth (the host resends old trees as deltas on the seed)', async () => {
    const w = await world();
    const original = snapshot()['apps/svc-3/deployment.yaml'] as string;
    expect(imageOf(await w.read(w.first, 3))).toBe('svc-3:1.0.3');
    // Each commit goes back to the tree before the last: the seed lacks those trees, so the host sends them
    // as deltas against the seed's, whose own pack holds those as deltas against the commit before it.
    for (let i = 1; i < MAX_SEED_PACKS; i++) {
      const back = i % 2 === 0;
      const { after } = await commitFiles(host.root, w.name, {
        changes: { 'apps/svc-3/deployment.yaml': back ? original : image(3, '2.0.0') },
        message: back ? 'revert' : 'bump',
      });
      const timeout = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`commit ${i} was not read within 10 s`)), 10_000).unref(),
      );
      expect(imageOf(await Promise.race([w.read(after, 3), timeout]))).toBe(
        back ? 'svc-3:1.0.3' : 'svc-3:2.0.0',
      );
    }
    expect(
      w
        .seededFrom()
        .slice(1)
        .every((s) => s !== undefined),
    ).toBe(true);
    // Every kept directory is whole by git's own measure: no pack leans on another pack's objects.
    for (const gitdir of await keptDirs(cacheDir)) {
      expect(() =>
        execFileSync('git', ['--git-dir', gitdir, 'fsck', '--no-dangling'], { stdio: 'pipe' }),
      ).not.toThrow();
    }
    await w.pool.close();
  }, 90_000);

  it.each([
    ['before its answer', false],
    ['midway through its pack', true],
  ])(
    'does not fetch the whole commit again when the host stalls on the seeded fetch %s',
    async (_, midway) => {
      const name = `gitops-${++repos}`;
      const first = await createBareRepo(host.root, name, snapshot());
      // In front of the host: every request passes, except an upload-pack that says `have`, which is never
      // answered (or answered with all of its pack but the last bytes, then nothing more).
      const posts: string[] = [];
      const proxy = createServer((req, res) => {
        const parts: Buffer[] = [];
        req.on('data', (c: Buffer) => parts.push(c));
        req.on('end', () => {
          const body = Buffer.concat(parts);
          if (req.method === 'POST') posts.push(body.includes('have ') ? 'seeded' : 'whole');
          const stall = req.method === 'POST' && body.includes('have ');
          if (stall && !midway) return;
          const upstream = request(
            new URL(req.url ?? '/', host.url(name)).origin + (req.url ?? '/'),
            { method: req.method, headers: req.headers },
            (answer) => {
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              if (!stall) answer.pipe(res);
              else {
                // All of the pack but its last bytes: the stall comes while isomorphic-git reads the pack.
                const got: Buffer[] = [];
                answer.on('data', (chunk: Buffer) => got.push(chunk));
                answer.on('end', () => {
                  const whole = Buffer.concat(got);
                  res.write(whole.subarray(0, whole.length - 30));
                });
              }
            },
          );
          upstream.end(body);
        });
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = proxy.address() as AddressInfo;
        const url = `http://127.0.0.1:${port}/${name}.git`;
        const pool = createGitReaderPool({ repositories: [url], cacheDir, timeoutMs: 500 });
        const read = async (sha: string) => {
          const session = pool.session();
          try {
            return await session.readManifests({ repo: { url }, sha, path: 'apps/svc-1' });
          } finally {
            await session.close();
          }
        };
        expect((await read(first)).documents).toHaveLength(2);
        const { after } = await commitFiles(host.root, name, {
          changes: { 'apps/svc-1/deployment.yaml': image(1, '3.0.0') },
          message: 'bump',
        });
        await expect(read(after)).rejects.toThrow('timed out after 500 ms');
        // One try on top of the held commit: the same host, already past its timeout, is not asked twice.
        expect(posts).toEqual(['whole', 'seeded']);
        await pool.close();
      } finally {
        proxy.closeAllConnections();
        await new Promise((resolve) => proxy.close(resolve));
      }
    },
  );

  it(`starts a chain afresh once a seed holds ${MAX_SEED_PACKS} packs`, async () => {
    const w = await world();
    await w.read(w.first, 0);
    for (let i = 1; i <= MAX_SEED_PACKS; i++) {
      const sha = await w.commit(i);
      expect(imageOf(await w.read(sha, i))).toBe(`svc-${i}:2.0.${i}`);
    }
    const bytes = w.fetchBytes();
    const [full] = bytes;
    // The first seeded fetches are small; the one after a seed of MAX_SEED_PACKS packs is whole again.
    expect(bytes.slice(1, MAX_SEED_PACKS).every((b) => b < (full as number) / 20)).toBe(true);
    expect(bytes[MAX_SEED_PACKS]).toBeGreaterThan((full as number) / 2);
    expect(w.seededFrom().at(-1)).toBeUndefined();
    await w.pool.close();
  });
});

/** The git directories a pool keeps under its cache directory (each holds `objects/pack`). */
async function keptDirs(cacheDir: string): Promise<string[]> {
  const all = await readdir(cacheDir, { recursive: true });
  return all.filter((d) => d.endsWith('objects/pack')).map((d) => join(cacheDir, d, '..', '..'));
}
