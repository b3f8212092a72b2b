import { type HttpClient, listServerRefs } from 'isomorphic-git';
import { UpstreamError } from '../errors.js';
import type { RepositoryProvider } from '../fleet/fleet-config.js';
import { type GitAuthCallbacks, type GitCredentials, gitAuthCallbacks } from './credentials.js';
import { httpStatusError, toGitError } from './git-errors.js';
import { createGitHttpClient } from './http-client.js';
import { type ListedRef, lsRefsV2 } from './ls-refs-v2.js';
import { v1OnlyHosts } from './protocol-v2.js';
import { fetchableRepoUrl, type RepoAllowList } from './repo-url.js';

export {
  compareVersions,
  type ResolvedRevision,
  resolveRevision,
  type SemverCheck,
} from './resolve-revision.js';

/** A repository to read: a URL from the fleet file and the credentials resolved for it. */
export interface GitRepo {
  readonly url: string;
  readonly auth?: GitCredentials;
  /** Picks the token's Basic-auth user (`oauth2` for GitLab). */
  readonly provider?: RepositoryProvider;
}

/** A fleet file's repository entry as it is read, with the credentials resolved for it. */
export function gitRepoOf(
  repo: { readonly url: string; readonly provider?: RepositoryProvider },
  auth: GitCredentials | undefined,
): GitRepo {
  return {
    url: repo.url,
    ...(auth === undefined ? {} : { auth }),
    ...(repo.provider === undefined ? {} : { provider: repo.provider }),
  };
}

export interface RemoteRefs {
  /** Full ref name → commit SHA (annotated tags peeled to their commit). Branches and tags only. */
  readonly refs: ReadonlyMap<string, string>;
  /** The remote's HEAD symref: its default branch as a full ref, e.g. `refs/heads/main`. */
  readonly head?: string;
}

export interface ListRemoteRefsOptions {
  readonly allowList: RepoAllowList;
  readonly timeoutMs?: number;
  readonly http?: HttpClient;
  /**
   * Only the refs whose names start with this (`ls-refs`' `ref-prefix`; a protocol v1 host's advertisement
   * is filtered here), and no HEAD: a host's pull-request refs (GitHub's `refs/pull/*`, two per pull
   * request) can be tens of thousands, megabytes a listing.
   */
  readonly prefix?: string;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_REFS_BYTES = 32 * 1024 * 1024;

/** What a listing of branches and tags asks for: not the host's other refs (`refs/pull/*`, `refs/changes/*`). */
const BRANCHES_TAGS_AND_HEAD = ['HEAD', 'refs/heads/', 'refs/tags/'];

/**
 * One `ls-refs` (protocol v2) of branches, tags and HEAD, or of the refs `prefix` starts, in one request.
 * A host that does not speak v2 is asked the v1 way (isomorphic-git: its ref advertisement, every ref,
 * filtered here), and remembered. Annotated tags are peeled, HEAD's target read.
 */
export async function listRemoteRefs(repo: GitRepo, options: ListRemoteRefsOptions): Promise<RemoteRefs> {
  const key = options.allowList.check(repo.url);
  let bodyError: UpstreamError | undefined;
  const http =
    options.http ??
    createGitHttpClient({
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxResponseBytes: MAX_REFS_BYTES,
      onBodyError: (error) => {
        bodyError ??= error;
      },
    });
  const url = fetchableRepoUrl(repo.url);
  const auth = gitAuthCallbacks(repo.auth, repo.provider);
  let listed: readonly ListedRef[] | { readonly statusCode: number } | undefined;
  try {
    listed = await listInOneRequest(url, options.prefix, http, auth);
    listed ??= await listServerRefs({
      http,
      url,
      protocolVersion: 2,
      symrefs: true,
      peelTags: true,
      ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
      ...auth,
    });
  } catch (error) {
    throw toGitError(bodyError ?? error, key, 'listing refs of');
  }
  // A list cut short would look complete to isomorphic-git; a missing tag must not look deleted.
  if (bodyError !== undefined) throw toGitError(bodyError, key, 'listing refs of');
  if ('statusCode' in listed) throw httpStatusError(listed.statusCode, key, 'listing refs of');
  const refs = new Map<string, string>();
  let head: string | undefined;
  for (const ref of listed) {
    if (ref.ref === 'HEAD') {
      if (ref.target !== undefined) head = ref.target;
      continue;
    }
    if (!ref.ref.startsWith('refs/heads/') && !ref.ref.startsWith('refs/tags/')) continue;
    // `ref-prefix` is a filter the host may apply loosely; the answer keeps to the prefix asked for.
    if (options.prefix !== undefined && !ref.ref.startsWith(options.prefix)) continue;
    // Apps sync to commits: an annotated tag stands for the commit it peels to.
    refs.set(ref.ref, ref.peeled ?? ref.oid);
  }
  return head === undefined ? { refs } : { refs, head };
}

/**
 * The v2 listing, or `undefined` to ask the v1 way: the host is known not to speak v2, does not, or failed
 * in a way the v1 way may not (a rate limit, a server error). An auth or not-found answer is the host's
 * answer either way (`statusCode`); a transport failure throws.
 */
async function listInOneRequest(
  url: string,
  prefix: string | undefined,
  http: HttpClient,
  auth: GitAuthCallbacks,
): Promise<readonly ListedRef[] | { readonly statusCode: number } | undefined> {
  if (v1OnlyHosts.has(url)) return undefined;
  let answer: Awaited<ReturnType<typeof lsRefsV2>>;
  try {
    answer = await lsRefsV2({
      url,
      prefixes: prefix === undefined ? BRANCHES_TAGS_AND_HEAD : [prefix],
      http,
      auth,
    });
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    return undefined;
  }
  if (answer.kind === 'listed') return answer.refs;
  if (answer.kind === 'not-spoken') {
    v1OnlyHosts.add(url);
    return undefined;
  }
  return [401, 403, 404].includes(answer.statusCode) ? { statusCode: answer.statusCode } : undefined;
}
