import { canonicalRepoKey } from '../matching/repo-url.js';
import type { StoredApp } from './app-model.js';
import type { RefPush, RefPushes } from './ports/ref-pushes.js';
import type { RolloutReader } from './ports/rollout-reader.js';
import { movedOnTo } from './ref-head.js';
import type { RolloutSummary } from './rollout-model.js';

// What one track poll looks up beside its rollouts' own records, each read at most once per poll however
// many of its rollouts and apps ask: where a rollout's ref has moved on to, and which apps a later commit's
// rollout has taken over on the cluster.

/** An object's key in the cluster's live listing and in the apps a later commit took over. */
export const liveKey = (kind: string, namespace: string, name: string) => `${kind}/${namespace}/${name}`;

export const appKey = (a: StoredApp) => liveKey(a.kind, a.namespace, a.name);

export interface PollLookups {
  /** The commit the rollout's ref has moved on to since, from the pushes received; undefined if none. */
  headOf(summary: RolloutSummary | undefined): Promise<string | undefined>;
  /** Whether the rollout of commit `later` holds `app` on this cluster (not as `superseded`). */
  ownedLater(later: string, app: StoredApp): Promise<boolean>;
}

export function pollLookups(
  cluster: string,
  deps: {
    readonly rollouts: Pick<RolloutReader, 'listApps'>;
    readonly refPushes: Pick<RefPushes, 'recent'>;
  },
): PollLookups {
  // One read per repository and ref per poll.
  const recent = new Map<string, Promise<readonly RefPush[]>>();
  // One read per commit per poll.
  const later = new Map<string, Promise<ReadonlySet<string>>>();
  return {
    async headOf(summary) {
      const repoKey = summary === undefined ? undefined : canonicalRepoKey(summary.repoUrl);
      if (summary === undefined || repoKey === undefined) return undefined;
      const key = `${repoKey}#${summary.ref}`;
      if (!recent.has(key))
        recent.set(
          key,
          deps.refPushes.recent(repoKey, summary.ref).catch(() => []),
        );
      const pushes = (await recent.get(key)) ?? [];
      const own = pushes.find((p) => p.after === summary.sha);
      return own === undefined ? undefined : movedOnTo(own, pushes);
    },
    async ownedLater(sha, app) {
      if (!later.has(sha)) {
        const apps = deps.rollouts.listApps(sha, cluster).then(
          (list) => new Set(list.filter((a) => a.state !== 'superseded').map(appKey)),
          () => new Set<string>(),
        );
        later.set(sha, apps);
      }
      return ((await later.get(sha)) ?? new Set()).has(appKey(app));
    },
  };
}
