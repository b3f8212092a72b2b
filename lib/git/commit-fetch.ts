import * as fs from 'node:fs';
import { addRemote, fetch as gitFetch, type HttpClient, init, readCommit } from 'isomorphic-git';
import { UpstreamError } from '../errors.js';
import type { GitAuthCallbacks } from './credentials.js';

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
}

export interface FetchedCommit {
  readonly via: 'sha' | 'ref';
}

/**
 * Fetches one commit shallowly (`depth: 1`). Hosts that allow a `want` of any reachable SHA (GitHub,
 * GitLab, git-http-backend) send just that snapshot. A host that refuses answers with no pack, and
 * isomorphic-git does not fail on that, so the commit is looked up afterwards and, when absent, the
 * last `fallbackDepth` commits of `ref` are fetched instead.
 */
export async function fetchCommit(request: FetchCommitRequest): Promise<FetchedCommit> {
  const { gitdir, url, sha, http, auth, cache } = request;
  await init({ fs, gitdir, bare: true });
  await addRemote({ fs, gitdir, remote: 'origin', url, force: true });
  const common = { fs, http, gitdir, url, cache, singleBranch: true, tags: false, ...auth };
  let refused: unknown;
  try {
    await gitFetch({ ...common, ref: sha, depth: 1 });
    if (await hasCommit(gitdir, sha, cache)) return { via: 'sha' };
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
  if (await hasCommit(gitdir, sha, cache)) return { via: 'ref' };
  throw new UpstreamError(
    `commit ${sha.slice(0, 12)} is not within the last ${request.fallbackDepth} commits of ${ref}`,
    { retryable: false, code: 'git-commit-not-found' },
  );
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
