import * as fs from 'node:fs';
import { link, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  addRemote,
  fetch as gitFetch,
  type HttpClient,
  indexPack,
  init,
  packObjects,
  readCommit,
  writeRef,
} from 'isomorphic-git';
import { UpstreamError } from '../errors.js';
import type { GitAuthCallbacks } from './credentials.js';
import { fetchPackV2 } from './fetch-v2.js';
import { v1OnlyHosts } from './protocol-v2.js';
import { thinPackTransport } from './thin-pack.js';

export interface FetchCommitRequest {
  /** An empty directory that becomes a bare git directory. */
  readonly gitdir: string;
  /** The URL to fetch (allow-list already checked). */
  readonly url: string;
  readonly sha: string;
  /** A ref that contains `sha` (the pushed ref, the app's revision); `HEAD` when unknown. */
  readonly ref?: string;
  /** How many commits of `ref` to fetch when the host refuses a fetch by SHA. */
  readonly fallbackDepth: number;
  readonly http: HttpClient;
  readonly auth: GitAuthCallbacks;
  readonly cache: object;
  /** A commit of the same repository fetched before (`seed`): the host sends only what this one adds. */
  readonly seed?: CommitSeed;
}

/** A git directory (on the same filesystem) holding an earlier fetched commit of the same repository. */
export interface CommitSeed {
  readonly gitdir: string;
  readonly sha: string;
}

export interface FetchedCommit {
  readonly via: 'sha' | 'ref';
  /** Whether the fetch started from a seed's objects (and so asked only for what is new). */
  readonly seeded: boolean;
}

/** The local ref naming the seed's commit: what the fetch tells the host it has. */
const SEED_REF = 'refs/heads/gitops-sync-seed';
/** A seed with this many packs is not used: reads look through every pack, so a chain starts afresh. */
export const MAX_SEED_PACKS = 8;

/**
 * Fetches one commit shallowly (`depth: 1`). Hosts that allow a `want` of any reachable SHA (GitHub,
 * GitLab, git-http-backend) send just that snapshot. A host that refuses answers with no pack, and
 * isomorphic-git does not fail on that, so the commit is looked up afterwards and, when absent, the
 * last `fallbackDepth` commits of `ref` are fetched instead.
 *
 * With a `seed`, the seed's packs are linked in first and the host is told `have` its commit (with its
 * shallow line) and asked for a thin pack: it sends only the objects the new commit adds, their deltas based
 * on the seed's objects, and that pack is then rewritten whole. Whatever goes wrong that way (no usable
 * seed, a refusal, a pack whose bases are not there), the directory is made anew and the commit fetched
 * whole, as without a seed.
 */
export async function fetchCommit(request: FetchCommitRequest): Promise<FetchedCommit> {
  const { gitdir, sha, cache } = request;
  await initRepository(request);
  let linked = request.seed === undefined ? undefined : await seedFrom(request.seed, gitdir);
  // One request where the host speaks protocol v2; the v1 ways below where it does not (or refused).
  const inOne = await fetchInOneRequest(request, linked);
  if (inOne === 'fetched') return { via: 'sha', seeded: linked !== undefined };
  if (inOne === 'dirty') {
    await rm(gitdir, { recursive: true, force: true });
    await initRepository(request);
    linked = request.seed === undefined ? undefined : await seedFrom(request.seed, gitdir);
  }
  if (linked !== undefined) {
    try {
      await gitFetch({
        ...fetchOptions(request, thinPackTransport(request.http)),
        ref: SEED_REF,
        remoteRef: sha,
        depth: 1,
      });
      if (await hasCommit(gitdir, sha, cache)) {
        await completeThinPacks(gitdir, linked, cache);
        return { via: 'sha', seeded: true };
      }
    } catch (error) {
      // The host did not answer in time, could not be reached, or sent too much: asking it again for the
      // whole commit would spend the same timeout twice. Any other failure (a refusal, a pack it could not
      // read) is the seeded way's alone: the whole fetch below answers for the host.
      if (error instanceof UpstreamError) throw error;
    }
    // What the seeded try left (the seed's links, a partial pack, its shallow list) goes before the whole fetch.
    await rm(gitdir, { recursive: true, force: true });
    await initRepository(request);
  }
  const common = fetchOptions(request, request.http);
  let refused: unknown;
  try {
    await gitFetch({ ...common, ref: sha, depth: 1 });
    if (await hasCommit(gitdir, sha, cache)) return { via: 'sha', seeded: false };
  } catch (error) {
    // Transport and auth failures are not a refused SHA: the fallback would fail the same way.
    if (!isRefusal(error)) throw error;
    refused = error;
  }
  const ref = request.ref ?? 'HEAD';
  try {
    await gitFetch({ ...common, ref, remoteRef: ref, depth: request.fallbackDepth });
  } catch (error) {
    throw refused ?? error;
  }
  if (await hasCommit(gitdir, sha, cache)) return { via: 'ref', seeded: false };
  throw new UpstreamError(
    `commit ${sha.slice(0, 12)} is not within the last ${request.fallbackDepth} commits of ${ref}`,
    { retryable: false, code: 'git-commit-not-found' },
  );
}

/**
 * The commit through one protocol v2 fetch (`fetchPackV2`): its pack written and indexed (a thin one, on
 * top of the seed's objects, then rewritten whole), the shallow boundary moved. `untouched`: the host did
 * not answer that way and nothing was written; `dirty`: something was, and the directory must be made anew.
 */
async function fetchInOneRequest(
  request: FetchCommitRequest,
  linked: ReadonlySet<string> | undefined,
): Promise<'fetched' | 'untouched' | 'dirty'> {
  const { gitdir, sha, cache, url } = request;
  if (v1OnlyHosts.has(url)) return 'untouched';
  const shallowPath = join(gitdir, 'shallow');
  const shallowNow = (await readFile(shallowPath, 'utf8').catch(() => ''))
    .split('\n')
    .filter((line) => line !== '');
  let fetched: Awaited<ReturnType<typeof fetchPackV2>>;
  try {
    fetched = await fetchPackV2({
      url,
      sha,
      ...(linked === undefined || request.seed === undefined
        ? {}
        : { have: { sha: request.seed.sha, shallow: shallowNow } }),
      http: request.http,
      auth: request.auth,
    });
  } catch (error) {
    // The host not answering in time or at all: the v1 way would wait for it again. Anything else is this
    // way's alone.
    if (error instanceof UpstreamError) throw error;
    return 'untouched';
  }
  if (fetched === 'not-now') return 'untouched';
  if (fetched === 'not-spoken') {
    v1OnlyHosts.add(url);
    return 'untouched';
  }
  try {
    const name = `pack-${fetched.pack.subarray(-20).toString('hex')}.pack`;
    await mkdir(join(gitdir, 'objects', 'pack'), { recursive: true });
    await writeFile(join(gitdir, 'objects', 'pack', name), fetched.pack);
    await indexPack({ fs, dir: gitdir, gitdir, filepath: join('objects', 'pack', name), cache });
    const boundary = new Set([...shallowNow, ...fetched.shallow]);
    for (const oid of fetched.unshallow) boundary.delete(oid);
    await writeFile(shallowPath, [...boundary].map((oid) => `${oid}\n`).join(''));
    if (!(await hasCommit(gitdir, sha, cache))) return 'dirty';
    if (linked !== undefined) await completeThinPacks(gitdir, linked, cache);
    return 'fetched';
  } catch {
    return 'dirty';
  }
}

async function initRepository({ gitdir, url }: FetchCommitRequest): Promise<void> {
  await init({ fs, gitdir, bare: true });
  await addRemote({ fs, gitdir, remote: 'origin', url, force: true });
}

function fetchOptions(request: FetchCommitRequest, http: HttpClient) {
  const { gitdir, url, cache, auth } = request;
  return { fs, http, gitdir, url, cache, singleBranch: true, tags: false, ...auth };
}

async function hasCommit(gitdir: string, oid: string, cache: object): Promise<boolean> {
  try {
    await readCommit({ fs, gitdir, oid, cache });
    return true;
  } catch {
    return false;
  }
}

function isRefusal(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'NotFoundError' || code === 'SmartHttpError' || code === 'EmptyServerResponseError';
}

/**
 * Links the seed's packs into `gitdir` (hard links: no copy, and removing either directory later leaves the
 * other whole), with its shallow list and a ref to its commit: the names linked, or `undefined`, and `gitdir`
 * as it was, when the seed cannot serve (no packs, too many, another filesystem, a directory gone).
 */
async function seedFrom(seed: CommitSeed, gitdir: string): Promise<ReadonlySet<string> | undefined> {
  const from = join(seed.gitdir, 'objects', 'pack');
  const to = join(gitdir, 'objects', 'pack');
  const linked: string[] = [];
  try {
    const names = (await readdir(from)).filter((n) => n.endsWith('.pack') || n.endsWith('.idx'));
    const packs = names.filter((n) => n.endsWith('.pack')).length;
    if (packs === 0 || packs >= MAX_SEED_PACKS) return undefined;
    await mkdir(to, { recursive: true });
    for (const name of names) {
      await link(join(from, name), join(to, name));
      linked.push(join(to, name));
    }
    const shallow = await readFile(join(seed.gitdir, 'shallow'), 'utf8').catch(() => '');
    if (shallow !== '') await writeFile(join(gitdir, 'shallow'), shallow);
    await writeRef({ fs, gitdir, ref: SEED_REF, value: seed.sha, force: true });
    return new Set(names);
  } catch {
    await Promise.all(linked.map((path) => rm(path, { force: true })));
    await rm(join(gitdir, 'shallow'), { force: true });
    return undefined;
  }
}

/**
 * Rewrites each pack the seeded fetch wrote (a thin pack: its deltas are based on the seed's objects) as a
 * whole one, every object in full, so no pack leans on another. Left thin, a chain of them can loop: a
 * commit that goes back to an earlier tree gets that tree resent as a delta on the seed's tree, which the
 * seed's own thin pack holds as a delta on the earlier tree, and isomorphic-git, which looks for a base in
 * the packs in listing order, follows the two deltas round for ever instead of reading the whole copy in
 * the first pack. (git itself refuses such a directory: `index-pack --fix-thin` appends the bases.)
 */
async function completeThinPacks(gitdir: string, seedNames: ReadonlySet<string>, cache: object) {
  const dir = join(gitdir, 'objects', 'pack');
  const thin = (await readdir(dir)).filter((n) => n.endsWith('.idx') && !seedNames.has(n));
  for (const idx of thin) {
    const name = idx.slice(0, -'.idx'.length);
    const oids = packIndexOids(await readFile(join(dir, idx)));
    // Read through the seed's packs (whole, by this same rule) and the thin one: every delta resolves.
    const { filename, packfile } = await packObjects({ fs, gitdir, oids, cache });
    const whole = filename.slice(0, -'.pack'.length);
    if (whole === name) continue;
    // The same objects as a seed's pack (a linked file, never written to): the thin copy just goes.
    if (!seedNames.has(`${whole}.idx`)) {
      await writeFile(join(dir, filename), packfile as Uint8Array);
      await indexPack({ fs, dir: gitdir, gitdir, filepath: join('objects', 'pack', filename), cache });
    }
    await rm(join(dir, idx));
    await rm(join(dir, `${name}.pack`));
  }
}

/** The object ids a version-2 pack index lists (`git show-index`): after its header and 256 fan-out counts. */
export function packIndexOids(idx: Buffer): string[] {
  const V2 = 0xff744f63;
  if (idx.byteLength < 8 + 256 * 4 || idx.readUInt32BE(0) !== V2 || idx.readUInt32BE(4) !== 2)
    throw new Error('not a version-2 pack index');
  const count = idx.readUInt32BE(8 + 255 * 4);
  const start = 8 + 256 * 4;
  if (idx.byteLength < start + count * 20) throw new Error('pack index shorter than its object count');
  const oids: string[] = [];
  for (let i = 0; i < count; i++) oids.push(idx.toString('hex', start + i * 20, start + (i + 1) * 20));
  return oids;
}
