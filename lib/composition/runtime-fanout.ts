import { parseApplication } from '../argocd/application.js';
import { pinnedRepositoryUrls } from '../argocd/pin.js';
import { createArgoCdApis, createRenderCache } from '../argocd-api/renderers.js';
import { destinationCluster } from '../fleet/destination.js';
import { compareCommits } from '../git/compare.js';
import { createGitReaderPool, type GitReader } from '../git/manifests.js';
import { gitRepoOf } from '../git/remote-refs.js';
import { CLUSTER_SECRET_STORES, SECRET_STORES } from '../kubernetes/resources.js';
import { createMatchIndexCache } from '../matching/index-cache.js';
import { canonicalRepoKey } from '../matching/repo-url.js';
import { unpinFleet } from '../release/unpin.js';
import { createAppPreflight } from '../rollouts/app-preflight.js';
import { changedFilesResolver } from '../rollouts/changed-files.js';
import { fanout } from '../rollouts/fanout.js';
import { createWarmCommit } from '../rollouts/warm-commit.js';
import { createResolutionCache } from '../secrets/secret-fetcher.js';
import type { PushEvent } from '../webhook/push-event.js';
import {
  type FleetBuilder,
  type FleetContext,
  type FleetFunctions,
  fleetContext,
  gitCacheDir,
} from './runtime-fleet.js';
import { preflightIdentity } from './runtime-preflight-identity.js';

/** The fanout Lambda's part of the fleet (`functions/fanout.ts`). */
export const fanoutFunctions: FleetBuilder = async (shared) => ({
  fanout: createFanout(await fleetContext(shared)),
});

/** Match apps across the fleet, preflight ExternalSecrets, refresh, start tracking. */
export function createFanout(context: FleetContext): FleetFunctions['fanout'] {
  const { config, logger, clock, secretsManager, secretReader, pushQueue, trackQueue } = context;
  const { fleetConfig, rollouts, reader, credentials } = context;
  // Kept across warm invocations: only objects whose uid or resourceVersion changed are parsed again.
  const indexCache = createMatchIndexCache();
  // The pushed ref's commit now, from the Git host, for repositories the fleet file lets us read.
  // That ref alone: a repository's pull-request refs can make its whole listing megabytes, on every push.
  const remoteHead = async (event: PushEvent, git: Pick<GitReader, 'remoteRef'>) => {
    const key = canonicalRepoKey(event.repo.webUrl);
    const repo = fleetConfig.repositories.find((r) => canonicalRepoKey(r.url) === key);
    if (repo === undefined) return undefined;
    const auth = await credentials(repo);
    return git.remoteRef(gitRepoOf(repo, auth), event.ref);
  };
  const destination = (cluster: string, raw: unknown) => {
    const parsed = parseApplication(raw);
    return parsed.ok
      ? destinationCluster(parsed.value.destination, cluster, fleetConfig.clusters)
      : undefined;
  };
  // Argo CD API clients for clusters whose fleet entry names one (argocdUrl + a token); renders per push.
  const argocdApis = context.part('argocdApis', () =>
    createArgoCdApis(fleetConfig.clusters, { secrets: secretReader }),
  );
  // One reader session per invocation (refs read fresh); fetched commits and the paths read at them are
  // immutable, so the container keeps them (bounded) for the next work items of the same push.
  const gitPool = context.part('gitPool', () =>
    createGitReaderPool({
      repositories: fleetConfig.repositories.map((r) => r.url),
      cacheDir: gitCacheDir(context),
      logger,
    }),
  );

  const identity = preflightIdentity(context);

  return async (message, budget) => {
    const git = gitPool.session();
    const renderer = createRenderCache(argocdApis, logger);
    try {
      await fanout(
        message,
        {
          fleet: context.gateway,
          rollouts: { ...rollouts, listApps: reader.listApps },
          leases: context.leases,
          newApps: rollouts.newApps,
          trackers: context.trackers,
          open: context.open,
          refPushes: context.refPushes,
          remoteHead: (event) => remoteHead(event, git),
          changedFiles: changedFilesResolver({
            repositories: fleetConfig.repositories,
            credentials,
            compare: (request) => compareCommits(request, { logger }),
            logger,
          }),
          preflight: createAppPreflight({
            fleet: fleetConfig,
            git,
            credentials,
            clusterStores: (cluster) => context.listIn(cluster, [SECRET_STORES, CLUSTER_SECRET_STORES]),
            resolve: {
              api: secretsManager,
              logger,
              cache: createResolutionCache(),
              identity: {
                ...identity,
                ...(budget === undefined ? {} : { deadlineMs: budget.deadlineMs }),
              },
            },
            renderer,
          }),
          warmCommit: createWarmCommit({
            repositories: fleetConfig.repositories,
            lastIndex: indexCache.last,
            renders: renderer.available,
            git,
            credentials,
            logger,
          }),
          matchIndex: (cluster, objects) => indexCache.indexFor(cluster, objects),
          destination,
          waveOf: context.release.waveOf,
          pinnedRepos: pinnedRepositoryUrls(fleetConfig.repositories),
          ungated: context.release.ungated,
          holdContext: context.release.holdContext,
          gate: (sha, summary) => context.release.engine.advanceQuietly(sha, summary),
          release: context.release.engine,
          restartDeadline: context.release.engine.restartDeadline,
          onGate: (gate) => context.release.engine.onGate(gate),
          onUnpin: (repo) => unpinFleet(context.gateway, repo, logger),
          notify: context.notify,
          queue: pushQueue,
          trackQueue,
          clock,
          logger,
          trackDeadlineSeconds: config.trackDeadlineSeconds,
          trackIntervalSeconds: config.trackIntervalSeconds,
          chainLeaseSeconds: context.chainLeaseSeconds,
        },
        budget ?? { deadlineMs: Date.now() + 100_000 },
      );
    } finally {
      await git.close();
    }
  };
}
