import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'isomorphic-git/http/node';
import {
  bareRepoPath,
  commitFiles,
  createBareRepo,
  git,
  makeReposRoot,
  removeReposRoot,
} from '../infra/local/git-repos.js';
import { type GitServer, startGitServer } from '../infra/local/git-server.js';
import { fetchCommit } from '../lib/git/commit-fetch.js';
import { createGitReaderPool, type GitReaderPool } from '../lib/git/manifests.js';
import { listRemoteRefs } from '../lib/git/remote-refs.js';
import { createRepoAllowList } from '../lib/git/repo-url.js';
import { type BenchOptions, type Metric, median, percentiles } from './report.js';

const S = 'git-fetch';

/**
 * A push's commit fetched whole against fetched on top of the commit a warm container holds (`seed`): a
 * repository of `files` manifests served by git-http-backend on loopback, each round a new commit that
 * changes one file, fetched both ways in turn. CPU is this process's (isomorphic-git's pack parse, index and
 * inflate; the server is a child process); bytes are the answers' (the pack, and a ref advertisement where
 * the fetch reads one: since 2026-12-07 a host speaking protocol v2 is asked by SHA in one request).
 */
export async function benchGitFetch(options: BenchOptions): Promise<Metric[]> {
  // [files, pull-request refs on the host]: GitHub lists two refs/pull/* per pull request ever opened.
  const sizes: [number, number][] = options.quick
    ? [[500, 0]]
    : [
        [2_000, 0],
        [10_000, 0],
        [2_000, 20_000],
      ];
  const rounds = options.quick ? 2 : 5;
  const metrics: Metric[] = [];
  for (const [files, pullRefs] of sizes) {
    const measured = await measure(files, rounds, pullRefs);
    const at = `${S}, ${files.toLocaleString('en-US')} manifest files, one changed${pullRefs === 0 ? '' : `, ${pullRefs.toLocaleString('en-US')} pull-request refs on the host`}`;
    metrics.push(
      ...percentiles(at, 'whole commit: CPU', measured.whole.cpu, 'ms'),
      ...percentiles(at, 'on top of the held commit (thin pack): CPU', measured.seeded.cpu, 'ms'),
      {
        scenario: at,
        metric: 'whole commit: bytes answered',
        value: median(measured.whole.bytes),
        unit: 'bytes',
      },
      {
        scenario: at,
        metric: 'on top of the held commit: bytes answered',
        value: median(measured.seeded.bytes),
        unit: 'bytes',
      },
      {
        scenario: at,
        metric: 'fetches that fell back to the whole commit',
        value: measured.fellBack,
        unit: 'fetches',
        target: { max: 0 },
      },
    );
  }
  const dirs = options.quick ? 100 : 1_000;
  const reads = await measureReads(dirs, rounds);
  const at = `${S}, ${dirs.toLocaleString('en-US')} app directories read through a reader pool`;
  metrics.push(
    ...percentiles(
      at,
      'every directory at a commit the pool has not read, CPU (after its fetch)',
      reads.cold,
      'ms',
    ),
    ...percentiles(
      at,
      'every directory at the next commit (one changed), CPU (after its fetch): unchanged directories answered by their tree id',
      reads.next,
      'ms',
    ),
  );
  const paths = options.quick ? 500 : 5_000;
  const again = await measureReadsAgain(paths, rounds);
  metrics.push(
    ...percentiles(
      `${S}, ${paths.toLocaleString('en-US')} app directories read through a reader pool`,
      "every directory again at the same commit (reconcile's next pass), CPU",
      again,
      'ms',
    ),
  );
  const pulls = options.quick ? 3_000 : 60_000;
  for (const v2 of [true, false]) {
    const listed = await measureListings(pulls, rounds, v2);
    const at = `${S}, ref listings of a repository with ${pulls.toLocaleString('en-US')} pull-request refs, a host speaking ${v2 ? 'protocol v2' : 'v0/v1 only (every ref sent: the floor of that host)'}`;
    for (const [what, sample] of [
      ["reconcile's branches, tags and HEAD", listed.whole],
      ["the plan's pushed ref", listed.one],
    ] as const) {
      metrics.push(...percentiles(at, `${what}: CPU`, sample.cpu, 'ms'), {
        scenario: at,
        metric: `${what}: bytes answered`,
        value: median(sample.bytes),
        unit: 'bytes',
      });
    }
  }
  return metrics;
}

/**
 * The two listings the orchestrator asks a Git host for: reconcile's branches, tags and HEAD (once per
 * repository per pass) and the plan's pushed ref (once per push), in a repository with `pullRefs`
 * `refs/pull/*` refs. A v0/v1-only host sends every ref whatever is asked; a v2 host only the prefixes'.
 */
async function measureListings(
  pullRefs: number,
  rounds: number,
  v2: boolean,
): Promise<{ whole: Sample; one: Sample }> {
  return withHost('bench-refs-', { protocolV2: v2 }, async ({ root, server, url }) => {
    const sha = await createBareRepo(root, 'r', manifests(10), { tags: ['v1.0.0'] });
    await addPullRefs(root, sha, pullRefs);
    const options = { allowList: createRepoAllowList([url]) };
    const whole: Sample = { cpu: [], bytes: [] };
    const one: Sample = { cpu: [], bytes: [] };
    const sample = async (into: Sample, prefix?: string) => {
      server.resetRequests();
      const before = process.cpuUsage();
      const listed = await listRemoteRefs({ url }, prefix === undefined ? options : { ...options, prefix });
      const used = process.cpuUsage(before);
      if (listed.refs.get('refs/heads/main') !== sha) throw new Error('the listing lost refs/heads/main');
      into.cpu.push((used.user + used.system) / 1000);
      into.bytes.push(server.requests.reduce((a, r) => a + r.bytes, 0));
    };
    // The first of each: the JIT's first pass, and a v1-only host's remembering (not measured).
    await sample({ cpu: [], bytes: [] });
    await sample({ cpu: [], bytes: [] }, 'refs/heads/main');
    for (let round = 0; round < rounds; round++) {
      await sample(whole);
      await sample(one, 'refs/heads/main');
    }
    return { whole, one };
  });
}

/**
 * A reconcile container's passes: every app directory of a monorepo read at the commit Argo CD synced, once
 * cold, then again each pass, through one reader pool with its default bounds (the reads are answered from
 * its kept sets while they fit).
 */
async function measureReadsAgain(count: number, rounds: number): Promise<number[]> {
  return withHost('bench-again-', {}, async ({ root, work, url }) => {
    const pool = createGitReaderPool({ repositories: [url], cacheDir: work });
    try {
      const sha = await createBareRepo(root, 'r', manifests(count));
      await readEveryDirectory(pool, url, sha, count);
      const cpu: number[] = [];
      for (let round = 0; round < rounds; round++) cpu.push(await readEveryDirectory(pool, url, sha, count));
      return cpu;
    } finally {
      await pool.close();
    }
  });
}

/**
 * A warm fan-out container's reads: every app directory of a monorepo at a push's commit, through one reader
 * pool as the preflight reads them. The first commit reads every file (the parse memo and the sets empty);
 * each next commit changes one directory, and the others are the same trees.
 */
async function measureReads(count: number, rounds: number): Promise<{ cold: number[]; next: number[] }> {
  return withHost('bench-reads-', {}, async ({ root, work, url }) => {
    const newPool = () => createGitReaderPool({ repositories: [url], cacheDir: work });
    const pool = newPool();
    try {
      let sha = await createBareRepo(root, 'r', manifests(count));
      await readEveryDirectory(pool, url, sha, count);
      const cold: number[] = [];
      const next: number[] = [];
      for (let round = 1; round <= rounds; round++) {
        sha = await changeOneFile(root, round, '3.0');
        next.push(await readEveryDirectory(pool, url, sha, count));
        // The same commit through a pool of its own: every file read and parsed.
        const fresh = newPool();
        cold.push(await readEveryDirectory(fresh, url, sha, count));
        await fresh.close();
      }
      return { cold, next };
    } finally {
      await pool.close();
    }
  });
}

/**
 * CPU of one session reading every app directory `apps/svc-<i>` at `sha` (after the first read, which waits
 * for the commit's fetch when the pool does not hold it).
 */
async function readEveryDirectory(pool: GitReaderPool, url: string, sha: string, count: number) {
  const session = pool.session();
  const read = (i: number) => session.readManifests({ repo: { url }, sha, path: `apps/svc-${i}` });
  await read(0);
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) await read(i);
  const used = process.cpuUsage(before);
  await session.close();
  return (used.user + used.system) / 1000;
}

/** A repos root served by `git http-backend` on loopback and a work directory, for `body`, removed after. */
async function withHost<T>(
  prefix: string,
  options: { readonly protocolV2?: boolean },
  body: (host: { root: string; work: string; server: GitServer; url: string }) => Promise<T>,
): Promise<T> {
  const root = await makeReposRoot(prefix);
  const work = await mkdtemp(join(tmpdir(), `${prefix}dirs-`));
  const server = await startGitServer({ root, ...options });
  try {
    return await body({ root, work, server, url: server.url('r') });
  } finally {
    await server.close();
    await removeReposRoot(root);
    await rm(work, { recursive: true, force: true });
  }
}

/** The next commit of repository `r`: `apps/svc-<round>`'s Deployment at image tag `<tag>.<round>`. */
async function changeOneFile(root: string, round: number, tag: string): Promise<string> {
  const changes = { [`apps/svc-${round}/deployment.yaml`]: deployment(round, `${tag}.${round}`) };
  return (await commitFiles(root, 'r', { changes, message: `round ${round}` })).after;
}

/** `count` GitHub-style pull-request refs on repository `r`, all at `sha`. */
async function addPullRefs(root: string, sha: string, count: number): Promise<void> {
  if (count === 0) return;
  const input = Array.from({ length: count }, (_, i) => `create refs/pull/${i}/head ${sha}\n`).join('');
  await git(['update-ref', '--stdin'], { gitDir: bareRepoPath(root, 'r'), input });
}

interface Sample {
  readonly cpu: number[];
  readonly bytes: number[];
}

async function measure(
  count: number,
  rounds: number,
  pullRefs: number,
): Promise<{ whole: Sample; seeded: Sample; fellBack: number }> {
  return withHost('bench-fetch-', {}, async ({ root, work, server, url }) => {
    let sha = await createBareRepo(root, 'r', manifests(count));
    await addPullRefs(root, sha, pullRefs);
    const base = { url, http, auth: {}, fallbackDepth: 5 } as const;
    const whole: Sample = { cpu: [], bytes: [] };
    const seeded: Sample = { cpu: [], bytes: [] };
    let fellBack = 0;
    // The held commit: the first one, fetched whole (not measured: the JIT's first pass).
    let held = { gitdir: join(work, 'held-0'), sha };
    await fetchCommit({ ...base, gitdir: held.gitdir, sha, cache: {} });
    for (let round = 1; round <= rounds; round++) {
      sha = await changeOneFile(root, round, '2.0');
      for (const way of ['whole', 'seeded'] as const) {
        const gitdir = join(work, `${way}-${round}`);
        server.resetRequests();
        const before = process.cpuUsage();
        const fetched = await fetchCommit({
          ...base,
          gitdir,
          sha,
          cache: {},
          ...(way === 'seeded' ? { seed: held } : {}),
        });
        const used = process.cpuUsage(before);
        const sample = way === 'whole' ? whole : seeded;
        sample.cpu.push((used.user + used.system) / 1000);
        // Every answer of the fetch: a ref advertisement too, where the fetch reads one.
        sample.bytes.push(server.requests.reduce((a, r) => a + r.bytes, 0));
        if (way === 'seeded') {
          if (!fetched.seeded) fellBack += 1;
          held = { gitdir, sha };
        }
      }
    }
    return { whole, seeded, fellBack };
  });
}

/** `count` Deployments, each file different (no delta makes the snapshot small). */
function manifests(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) files[`apps/svc-${i}/deployment.yaml`] = deployment(i, `1.0.${i}`);
  return files;
}

function deployment(i: number, tag: string): string {
  const token = ((i + 1) * 2_654_435_761).toString(36).repeat(6);
  return `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: svc-${i}\n  labels: { tier: "${(i * 7919) % 100_000}" }\nspec:\n  replicas: ${1 + (i % 5)}\n  template:\n    spec:\n      containers: [{ name: app, image: "ghcr.io/example/svc-${i}:${tag}", env: [{ name: K, value: "${token}" }] }]\n`;
}
