import type { Clock } from '../../lib/ports.js';
import type { ResolveRevision } from './argocd-controller.js';

const FULL_SHA = /^[0-9a-fA-F]{40}$/;
/** What the repo-server's ref cache lives when `timeout.reconciliation` is 0 (its default expiration). */
export const DEFAULT_CACHE_EXPIRATION_MS = 24 * 60 * 60_000;

/**
 * One Argo CD instance's repo-server ref cache, shared by every app of a repository URL
 * (`notes/argocd-refresh-triggers.md` §0): a `live` resolve (a refresh, a spec change) runs `ls-remote`, which
 * reads every ref of the repository, so it refreshes what the cache holds for the repository's other
 * revisions too; a `cached` resolve (a poll, the compare after an automated sync) answers from the cache
 * while it is fresh. A full 40-hex SHA is used as it is, by both, without asking anyone.
 */
export interface RefCache {
  live(repoURL: string, revision: string): Promise<string | undefined>;
  cached(repoURL: string, revision: string): Promise<string | undefined>;
}

interface Entry {
  fetchedAt: number;
  readonly revisions: Map<string, string | undefined>;
}

export function createRefCache(
  resolve: ResolveRevision,
  clock: Clock,
  /** How long an entry is fresh (the repo-server's revision cache expiration). */
  expirationMs: () => number,
): RefCache {
  const entries = new Map<string, Entry>();
  const live = async (repoURL: string, revision: string): Promise<string | undefined> => {
    if (FULL_SHA.test(revision)) return revision.toLowerCase();
    const key = repoKey(repoURL);
    const entry = entries.get(key) ?? { fetchedAt: 0, revisions: new Map() };
    entries.set(key, entry);
    const wanted = new Set([...entry.revisions.keys(), revision]);
    const fetchedAt = clock.now().getTime();
    const answers = await Promise.all([...wanted].map(async (r) => [r, await resolve(repoURL, r)] as const));
    for (const [r, sha] of answers) entry.revisions.set(r, sha);
    entry.fetchedAt = Math.max(entry.fetchedAt, fetchedAt);
    return entry.revisions.get(revision);
  };
  return {
    live,
    cached: async (repoURL, revision) => {
      if (FULL_SHA.test(revision)) return revision.toLowerCase();
      const entry = entries.get(repoKey(repoURL));
      const fresh = entry !== undefined && clock.now().getTime() - entry.fetchedAt < expirationMs();
      if (fresh && entry.revisions.get(revision) !== undefined) return entry.revisions.get(revision);
      return live(repoURL, revision);
    },
  };
}

function repoKey(url: string): string {
  return url
    .toLowerCase()
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
}
