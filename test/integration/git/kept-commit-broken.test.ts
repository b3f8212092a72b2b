import { promises as fsp } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HttpClient } from 'isomorphic-git';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBareRepo } from '../../../infra/local/git-repos.js';
import { frozenGitFs, type PromiseFs } from '../../../lib/git/frozen-fs.js';
import { createGitHttpClient } from '../../../lib/git/http-client.js';
import { createKeptCommits } from '../../../lib/git/kept-commits.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { startTestGitHost, type TestGitHost } from '../../helpers/git.js';

// A kept commit whose read failed for another reason than a missing path (here the packs' listing
// answering EMFILE once) stayed in the container's pool, every later read of it failing alike, until
// least-recently-used eviction: every preflight of that commit in that container said "manifests not read".
// It is now marked broken, answers its failure for the rest of the session without a fetch storm, and is
// dropped when the session ends, so the next session fetches it again. Real parts: `git http-backend` over
// smart HTTP, isomorphic-git, the reader's own fs view over a file system that fails once.

describe('a kept commit whose read fails', () => {
  let host: TestGitHost;
  let cacheDir: string;
  let sha: string;
  beforeAll(async () => {
    host = await startTestGitHost();
    cacheDir = await mkdtemp(join(tmpdir(), 'kept-broken-'));
    sha = await createBareRepo(host.root, 'apps', {
      'apps/web/deployment.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web }\n',
    });
  });
  afterAll(async () => {
    await host?.close();
    await rm(cacheDir, { recursive: true, force: true });
  });

  it('fails the same way for the rest of the session, then is fetched again and read', async () => {
    // The packs' listing answers EMFILE once (a container out of file descriptors for a moment).
    let faults = 1;
    const failingOnce: PromiseFs = {
      ...fsp,
      readdir: (async (path: unknown, options?: unknown) => {
        if (typeof path === 'string' && path.endsWith(join('objects', 'pack')) && faults > 0) {
          faults--;
          throw Object.assign(new Error(`EMFILE: too many open files, scandir '${path}'`), {
            code: 'EMFILE',
          });
        }
        return fsp.readdir(path as string, options as never);
      }) as typeof fsp.readdir,
    };
    let fetches = 0;
    const transport = (): HttpClient => {
      const client = createGitHttpClient({ timeoutMs: 10_000, maxResponseBytes: 10_000_000 });
      return {
        request: (request) => {
          if (request.method === 'POST' && request.url.endsWith('/git-upload-pack')) fetches++;
          return client.request(request);
        },
      };
    };
    const logger = createMemoryLogger();
    const commits = createKeptCommits({
      cacheDir,
      fallbackDepth: 50,
      transport,
      logger,
      readFs: () => frozenGitFs(failingOnce),
    });
    const repo = { url: host.url('apps') };
    const key = 'apps';
    try {
      const tree = await commits.treeOf(repo, key, sha, 'refs/heads/main');
      expect(fetches).toBe(1);
      await expect(tree.readFile('apps/web/deployment.yaml')).rejects.toThrow(/EMFILE/);
      // The rest of the session: the same failure, no second fetch (one per app would be a storm).
      const again = await commits.treeOf(repo, key, sha, 'refs/heads/main');
      await expect(again.listDirectory('apps/web')).rejects.toThrow();
      expect(fetches).toBe(1);
      expect(
        logger.lines.some(
          (line) => line.message === 'git commit unreadable: fetched again in the next session',
        ),
      ).toBe(true);

      // The session ends: the broken commit goes (its directory too), whatever the pool may keep.
      const [workDir] = await readdir(cacheDir);
      expect(await commits.evict(8)).toEqual([`${key}@${sha}`]);
      expect(await readdir(join(cacheDir, workDir as string))).toEqual([]);

      // The next session fetches it again, and reads it.
      const fresh = await commits.treeOf(repo, key, sha, 'refs/heads/main');
      expect(fetches).toBe(2);
      expect(Buffer.from((await fresh.readFile('apps/web/deployment.yaml')) ?? []).toString()).toContain(
        'name: web',
      );
      expect(await commits.evict(8)).toEqual([]);
    } finally {
      await commits.close();
    }
  });
});
