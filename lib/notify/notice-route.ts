import { canonicalRepoKey } from '../matching/repo-url.js';
import type { RolloutSnapshot } from './types.js';

/** The parts of the fleet file Slack messages use: Argo CD UI links and per-repository channels. */
export interface NoticeFleet {
  readonly clusters: readonly { readonly name: string; readonly argocdUrl?: string }[];
  readonly repositories: readonly { readonly url: string; readonly slackChannel?: string }[];
}

/** The repository's own `slackChannel`, matched by canonical repository key, if the fleet names one. */
export function channelFor(snapshot: RolloutSnapshot, fleet: NoticeFleet | undefined): string | undefined {
  const key = canonicalRepoKey(snapshot.repo.webUrl);
  if (key === undefined) return undefined;
  return fleet?.repositories.find((r) => r.slackChannel !== undefined && canonicalRepoKey(r.url) === key)
    ?.slackChannel;
}

/** Cluster name → its Argo CD UI base URL, for the clusters that name one. */
export function argocdUrls(fleet: NoticeFleet | undefined): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const cluster of fleet?.clusters ?? []) if (cluster.argocdUrl) out[cluster.name] = cluster.argocdUrl;
  return out;
}
