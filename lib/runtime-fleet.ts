import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from './app.js';
import { createArgoCdApis, createRenderCache, createRenderMemo } from './argocd-api/renderers.js';
import type { Config } from './config.js';
import { ConfigError, errorMessage } from './errors.js';
import type { RepositoryConfig } from './fleet/fleet-config.js';
import { loadFleetFile } from './fleet/fleet-file.js';
import { createFleetGateway } from './fleet/fleet-gateway.js';
import { compareCommits } from './git/compare.js';
import { credentialsFor, type GitCredentials } from './git/credentials.js';
import { createGitReader } from './git/manifests.js';
import { type ClusterClients, createClusterClients } from './kubernetes/cluster-clients.js';
import {
  CLUSTER_SECRET_STORES,
  EXTERNAL_SECRETS,
  type KubeResource,
  SECRET_STORES,
} from './kubernetes/resources.js';
import { createRolloutNotifier } from './notify/rollout-notifier.js';
import { createSlackTarget, postToSlack } from './notify/slack-target.js';
import { countReconcile } from './observability/reconcile-metrics.js';
import { runReconcile } from './reconcile/run-reconcile.js';
import { createAppPreflight } from './rollouts/app-preflight.js';
import { changedFilesResolver } from './rollouts/changed-files.js';
import { fanoutPush } from './rollouts/fanout.js';
import { postSyncCheck } from './rollouts/post-sync-check.js';
import { rolloutNotice } from './rollouts/rollout-notice.js';
import { liveKey, trackRollout } from './rollouts/track.js';
import type { SharedRuntime } from './runtime.js';
import { createResolutionCache } from './secrets/secret-fetcher.js';
import { dynamoReconcileMemory, dynamoRolloutExistence } from './store/reconcile-memory.js';
import { createSlackRefs } from './store/slack-refs.js';

export type FleetFunctions = Pick<App, 'fanout' | 'track' | 'reconcile'>;

/**
 * The functions that talk to the fleet (fanout, track, reconcile), built on their first call: the webhook
 * and API functions never load client-node, isomorphic-git, the Slack SDKs or the audit rules.
 */
export async function createFleetFunctions(shared: SharedRuntime): Promise<FleetFunctions> {
  const { config, overrides, logger, clock, table, secretsManager, secretReader, pushQueue, trackQueue } =
    shared;
  const { rollouts, reader, findings, metrics } = shared;
  const fleetConfig = overrides.fleet ?? (await loadFleetFile(requiredFleetPath(config)));
  const clients = createClusterClients(fleetConfig, { secrets: secretReader, logger, clock });
  const gateway = createFleetGateway(fleetConfig, clients, config.refreshConcurrency);
  // A Slack credential in Secrets Manager is read through the TTL-cached reader (Powertools Parameters).
  const slack = createSlackTarget(config.slack, { logger, secrets: shared.cachedSecrets });
  const notifier = createRolloutNotifier({
    slack,
    store: createSlackRefs({ client: table.client, tableName: table.tableName, clock }),
    logger,
    clock,
  });
  const notify = rolloutNotice({ rollouts: reader, notifier, logger, metrics, clock });
  // Argo CD API clients for clusters whose fleet entry names one (argocdUrl + a token); renders per push.
  const argocdApis = createArgoCdApis(fleetConfig.clusters, { secrets: secretReader });
  // The audit's renders, reused across passes of a warm container while an app's spec and revisions hold.
  const auditRenders = createRenderMemo();
  const credentials = (repo: RepositoryConfig): Promise<GitCredentials | undefined> =>
    credentialsFor(repo, secretReader);
  // Best-effort reads for the preflight and the post-sync check: an unreadable list is an empty one.
  const listIn = (cluster: string, resources: readonly KubeResource[], namespace?: string) =>
    listBestEffort(clients, cluster, resources, namespace);
  // One reader per invocation: it caches fetched commits for that invocation and is closed after it.
  const gitReader = () =>
    createGitReader({
      repositories: fleetConfig.repositories.map((r) => r.url),
      cacheDir: join(overrides.gitCacheDir ?? tmpdir(), 'gitops-sync-git'),
      logger,
    });

  return {
    async fanout(message) {
      const git = gitReader();
      try {
        await fanoutPush(message, {
          fleet: gateway,
          rollouts: { ...rollouts, listApps: reader.listApps },
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
          notify,
          pushQueue,
          trackQueue,
          clock,
          logger,
          trackDeadlineSeconds: config.trackDeadlineSeconds,
          trackIntervalSeconds: config.trackIntervalSeconds,
        });
      } finally {
        await git.close();
      }
    },
    async track(message) {
      await trackRollout(message, {
        rollouts: { ...reader, ...rollouts },
        live: {
          async listTargets(cluster, kinds) {
            const target = gateway.cluster(cluster);
            if (target === undefined) throw new Error(`cluster ${cluster} is not in the fleet`);
            const objects = new Map<string, unknown>();
            for (const kind of kinds) {
              for (const raw of await target.list(kind)) {
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
        // run-reconcile logs the pass's summary line; here it is counted.
        countReconcile(metrics, report);
        return { ...report };
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

function requiredFleetPath(config: Config): string {
  if (config.fleetConfigPath === undefined) {
    throw new ConfigError('FLEET_CONFIG', 'is required by fanout, track and reconcile');
  }
  return config.fleetConfigPath;
}
