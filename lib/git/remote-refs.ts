import { type HttpClient, listServerRefs } from 'isomorphic-git';
import type { UpstreamError } from '../errors.js';
import type { RepositoryProvider } from '../fleet/fleet-config.js';
import { type GitCredentials, gitAuthCallbacks } from './credentials.js';
import { toGitError } from './git-errors.js';
import { createGitHttpClient } from './http-client.js';
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

/**
 * One `ls-refs` (protocol v2; servers that only speak v1 answer the same question in their ref
 * advertisement): every branch and tag with peeled tags, plus HEAD's target.
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
  let listed: Awaited<ReturnType<typeof listServerRefs>>;
  try {
    listed = await listServerRefs({
      http,
      url: fetchableRepoUrl(repo.url),
      protocolVersion: 2,
      symrefs: true,
      peelTags: true,
      ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
      ...gitAuthCallbacks(repo.auth, repo.provider),
    });
  } catch (error) {
    throw toGitError(bodyError ?? error, key, 'listing refs of');
  }
  // A list cut short would look complete to isomorphic-git; a missing tag must not look deleted.
  if (bodyError !== undefined) throw toGitError(bodyError, key, 'listing refs of');
  const refs = new Map<string, string>();
  let head: string | undefined;
  for (const ref of listed) {
    if (ref.ref === 'HEAD') {
      if (ref.target !== undefined) head = ref.target;
      continue;
    }
    if (!ref.ref.startsWith('refs/heads/') && !ref.ref.startsWith('refs/tags/')) continue;
    // Apps sync to commits: an annotated tag stands for the commit it peels to.
    refs.set(ref.ref, ref.peeled ?? ref.oid);
  }
  return head === undefined ? { refs } : { refs, head };
}
