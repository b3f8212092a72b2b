import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from './app.js';
import { parseApplication } from './argocd/application.js';
import { createArgoCdApis, createRenderCache, createRenderMemo } from './argocd-api/renderers.js';
import { commitStatusNotice } from './commit-status/commit-status-notice.js';
import { postStatus } from './commit-status/post-status.js';
import { errorMessage } from './errors.js';
import { destinationCluster } from './fleet/destination.js';
import type { RepositoryConfig } from './fleet/fleet-config.js';
import { createFleetGateway } from './fleet/fleet-gateway.js';
import { compareCommits } from './git/compare.js';
import { credentialsFor, type GitCredentials } from './git/credentials.js';
import { createGitReaderPool, type GitReader } from './git/manifests.js';
import { type ClusterClients, createClusterClients } from './kubernetes/cluster-clients.js';
import {
  CLUSTER_SECRET_STORES,
  EXTERNAL_SECRETS,
  type KubeResource,
  SECRET_STORES,
} from './kubernetes/resources.js';
import { createMatchIndexCache } from './matching/index-cache.js';
import { canonicalRepoKey } from './matching/repo-url.js';
import { createRolloutNotifier } from './notify/rollout-notifier.js';
import { createSlackTarget, postToSlack } from './notify/slack-target.js';
import { countReconcile } from './observability/reconcile-metrics.js';
import { runReconcile } from './reconcile/run-reconcile.js';
import { createAppPreflight } from './rollouts/app-preflight.js';
import { changedFilesResolver } from './rollouts/changed-files.js';
import { fanout } from './rollouts/fanout.js';
import { postSyncCheck } from './rollouts/post-sync-check.js';
import { rolloutNotice } from './rollouts/rollout-notice.js';
import { sweepRollouts } from './rollouts/sweep.js';
import { liveKey, trackCluster } from './rollouts/track.js';
import type { SharedRuntime } from './runtime.js';
import { createResolutionCache } from './secrets/secret-fetcher.js';
import { dynamoAppTransitions } from './store/app-transitions.js';
import { dynamoClusterLeases } from './store/cluster-leases.js';
import { dynamoPostedStatuses } from './store/commit-statuses.js';
import { dynamoOpenRollouts } from './store/open-rollouts.js';
import { dynamoReconcileMemory, dynamoRolloutExistence } from './store/reconcile-memory.js';
import { dynamoRefPushes } from './store/ref-pushes.js';
import { createSlackRefs } from './store/slack-refs.js';
import { dynamoClusterTrackers } from './store/trackers.js';
import type { PushEvent } from './webhook/push-event.js';

export type FleetFunctions = Pick<App, 'fanout' | 'track' | 'reconcile'>;

const TRACKER_TTL_SECONDS = 7 * 24 * 3600;
const REF_PUSH_TTL_SECONDS = 24 * 3600;
/** How long past its deadline a rollout may stay open before the sweep finishes it. */
const SWEEP_GRACE_SECONDS = 60;

/**
 * The functions that talk to the fleet (fanout, track, reconcile), built on their first call: the webhook
 * and API functions never load client-node, isomorphic-git, the Slack SDKs or the audit rules.
 */
export async function createFleetFunctions(shared: SharedRuntime): Promise<FleetFunctions> {
  const { config, overrides, logger, clock, table, secretsManager, secretReader, pushQueue, trackQueue } =
    shared;
  const { rollouts, reader, findings, metrics } = shared;
  const fleetConfig = await shared.fleetSource.current();
  const clients = createClusterClients(fleetConfig, { secrets: secretReader, logger, clock });
  const gateway = createFleetGateway(fleetConfig, clients, config.refreshConcurrency);
  // A Slack credential in Secrets Manager is read through the TTL-cached reader (Powertools Parameters).
  const slack = createSlackTarget(config.slack, { logger, secrets: shared.cachedSecrets });
  const notifier = createRolloutNotifier({
    slack,
    store: createSlackRefs({ client: table.client, tableName: table.tableName, clock }),
    logger,
    clock,
    fleet: fleetConfig,
  });
  const trackers = dynamoClusterTrackers(table, TRACKER_TTL_SECONDS);
  // Kept across warm invocations: only objects whose uid or resourceVersion changed are parsed again.
  const indexCache = createMatchIndexCache();
  const open = dynamoOpenRollouts(table);
  const leases = dynamoClusterLeases(table);
  const transitions = dynamoAppTransitions(table);
  const refPushes = dynamoRefPushes(table, REF_PUSH_TTL_SECONDS);
  // Longer than any gap between two polls of a chain, so only a lost chain ever lets its lease run out.
  const chainLeaseSeconds = Math.max(config.trackChainLeaseSeconds, config.trackMaxIntervalSeconds + 5);
  // The pushed ref's commit now, from the Git host, for repositories the fleet file lets us read.
  const remoteHead = async (event: PushEvent, git: Pick<GitReader, 'listRemoteRefs'>) => {
    const key = canonicalRepoKey(event.repo.webUrl);
    const repo = fleetConfig.repositories.find((r) => canonicalRepoKey(r.url) === key);
    if (repo === undefined) return undefined;
    const auth = await credentials(repo);
    const remote = await git.listRemoteRefs({
      url: repo.url,
      ...(auth === undefined ? {} : { auth }),
      ...(repo.provider === undefined ? {} : { provider: repo.provider }),
    });
    return remote.refs.get(event.ref);
  };
  const destination = (cluster: string, raw: unknown) => {
    const parsed = parseApplication(raw);
    return parsed.ok
      ? destinationCluster(parsed.value.destination, cluster, fleetConfig.clusters)
      : undefined;
  };
  // Argo CD API clients for clusters whose fleet entry names one (argocdUrl + a token); renders per push.
  const argocdApis = createArgoCdApis(fleetConfig.clusters, { secrets: secretReader });
  // The audit's renders, reused across passes of a warm container while an app's spec and revisions hold.
  const auditRenders = createRenderMemo();
  const credentials = (repo: RepositoryConfig): Promise<GitCredentials | undefined> =>
    credentialsFor(repo, secretReader);
  const slackNotice = rolloutNotice({ rollouts: reader, notifier, logger, metrics, clock });
  const statusNotice = commitStatusNotice({
    rollouts: reader,
    repositories: fleetConfig.repositories,
    credentials,
    posted: dynamoPostedStatuses(table, 90 * 24 * 3600),
    post: (request) => postStatus(request),
    pageUrl: (sha) => {
      const base = config.publicUrl ?? overrides.publicUrl?.();
      return base === undefined ? undefined : `${base}/ui/rollouts/${sha}`;
    },
    logger,
  });
  // Slack and the commit status side by side; neither ever throws.
  const notify = async (sha: string) => {
    await Promise.all([slackNotice(sha), statusNotice(sha)]);
  };
  // Best-effort reads for the preflight and the post-sync check: an unreadable list is an empty one.
  const listIn = (cluster: string, resources: readonly KubeResource[], namespace?: string) =>
    listBestEffort(clients, cluster, resources, namespace);
  // One reader session per invocation (refs read fresh); fetched commits and the paths read at them are
  // immutable, so the container keeps them (bounded) for the next work items of the same push.
  const gitPool = createGitReaderPool({
    repositories: fleetConfig.repositories.map((r) => r.url),
    cacheDir: join(overrides.gitCacheDir ?? tmpdir(), 'gitops-sync-git'),
    logger,
  });
  const gitReader = () => gitPool.session();

  return {
    async fanout(message, budget) {
      const git = gitReader();
      try {
        await fanout(
          message,
          {
            fleet: gateway,
            rollouts: { ...rollouts, listApps: reader.listApps },
            leases,
            newApps: rollouts.newApps,
            trackers,
            open,
            refPushes,
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
              clusterStores: (cluster) => listIn(cluster, [SECRET_STORES, CLUSTER_SECRET_STORES]),
              resolve: { api: secretsManager, logger, cache: createResolutionCache() },
              renderer: createRenderCache(argocdApis, logger),
            }),
            matchIndex: (cluster, objects) => indexCache.indexFor(cluster, objects),
            destination,
            notify,
            queue: pushQueue,
            trackQueue,
            clock,
            logger,
            trackDeadlineSeconds: config.trackDeadlineSeconds,
            trackIntervalSeconds: config.trackIntervalSeconds,
            chainLeaseSeconds,
          },
          budget ?? { deadlineMs: Date.now() + 100_000 },
        );
      } finally {
        await git.close();
      }
    },
    async track(message) {
      await trackCluster(message, {
        rollouts: { ...reader, ...rollouts, ...transitions },
        leases,
        trackers,
        refPushes,
        live: {
          async listTargets(cluster, kinds) {
            const target = gateway.cluster(cluster);
            if (target === undefined) throw new Error(`cluster ${cluster} is not in the fleet`);
            const objects = new Map<string, unknown>();
            for (const kind of kinds) {
              for (const raw of await target.list(kind, 'track')) {
                const meta = (raw as { metadata?: { namespace?: string; name?: string } }).metadata;
                objects.set(liveKey(kind, meta?.namespace ?? '', meta?.name ?? ''), raw);
              }
            }
            return objects;
          },
        },
        onEnd: postSyncCheck({
          clusters: fleetConfig.clusters,
          externalSecrets: (cluster, namespace) => listIn(cluster, [EXTERNAL_SECRETS], namespace),
          logger,
        }),
        notify,
        queue: trackQueue,
        clock,
        logger,
        intervalSeconds: config.trackIntervalSeconds,
        maxIntervalSeconds: config.trackMaxIntervalSeconds,
        chainLeaseSeconds,
      });
    },
    async reconcile(options = {}) {
      const git = gitReader();
      try {
        const report = await runReconcile({
          fleet: fleetConfig,
          clusters: clients,
          git,
          credentials,
          findings,
          memory: dynamoReconcileMemory(table),
          rollouts: dynamoRolloutExistence(table),
          pushQueue,
          digest: (message) =>
            postToSlack(slack, message).catch((error: unknown) =>
              logger.warn('findings digest not sent', { error: errorMessage(error) }),
            ),
          clock,
          logger,
          renderer: createRenderCache(argocdApis, logger, auditRenders),
          options: {
            graceSeconds: config.missedWebhookGraceSeconds,
            ...(options.timeBudgetMs === undefined ? {} : { timeBudgetMs: options.timeBudgetMs }),
          },
        });
        const sweep = await sweepRollouts({
          open,
          rollouts: { ...reader, ...rollouts },
          trackers,
          trackQueue,
          clusters: fleetConfig.clusters.map((c) => c.name),
          notify,
          clock,
          logger,
          graceSeconds: SWEEP_GRACE_SECONDS,
          chainLeaseSeconds,
          leases,
        });
        // run-reconcile logs the pass's summary line; here it is counted.
        countReconcile(metrics, report);
        return { ...report, sweep };
      } finally {
        await git.close();
      }
    },
  };
}

async function listBestEffort(
  clients: ClusterClients,
  cluster: string,
  resources: readonly KubeResource[],
  namespace?: string,
): Promise<unknown[]> {
  const client = clients.get(cluster);
  if (client === undefined) return [];
  const lists = await Promise.all(
    resources.map((r) =>
      client.list(r, namespace).then(
        (l) => l.items,
        () => [],
      ),
    ),
  );
  return lists.flat();
}
