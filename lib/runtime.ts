import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { FindingsReader } from './api/findings-reader.js';
import { handleApi } from './api/handle-api.js';
import type { App } from './app.js';
import { createSecretReader } from './aws/secret-reader.js';
import { createSecretsManagerApi } from './aws/secrets-manager.js';
import type { Config } from './config.js';
import { ConfigError, errorMessage } from './errors.js';
import type { FleetConfig, RepositoryConfig } from './fleet/fleet-config.js';
import { loadFleetFile } from './fleet/fleet-file.js';
import { createFleetGateway } from './fleet/fleet-gateway.js';
import type { FleetGateway } from './fleet/gateway.js';
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
import { createLogger } from './logger.js';
import { createRolloutNotifier } from './notify/rollout-notifier.js';
import { createSlackTarget, postToSlack } from './notify/slack-target.js';
import { type Clock, type Logger, type Queue, type SecretReader, systemClock } from './ports.js';
import type { PushMessage, TrackMessage } from './queue/messages.js';
import { sqsQueue } from './queue/sqs-queue.js';
import { runReconcile } from './reconcile/run-reconcile.js';
import { createAppPreflight } from './rollouts/app-preflight.js';
import { changedFilesResolver } from './rollouts/changed-files.js';
import { fanoutPush } from './rollouts/fanout.js';
import { postSyncCheck } from './rollouts/post-sync-check.js';
import { rolloutNotice } from './rollouts/rollout-notice.js';
import { liveKey, trackRollout } from './rollouts/track.js';
import { createResolutionCache } from './secrets/secret-fetcher.js';
import { dynamoDeliveryStore } from './store/deliveries.js';
import { createTableRef } from './store/dynamo.js';
import { dynamoFindingsStore } from './store/findings.js';
import { dynamoReconcileMemory, dynamoRolloutExistence } from './store/reconcile-memory.js';
import { dynamoRolloutReader } from './store/rollout-items.js';
import { dynamoRolloutWriter } from './store/rollouts.js';
import { createSlackRefs } from './store/slack-refs.js';
import { handleWebhook } from './webhook/handle-webhook.js';
import { webhookSecretSource } from './webhook/secret-source.js';

/** What the local stack and tests swap in; everything else is built from the config. */
export interface RuntimeOverrides {
  readonly logger?: Logger;
  readonly clock?: Clock;
  readonly pushQueue?: Queue<PushMessage>;
  readonly trackQueue?: Queue<TrackMessage>;
  /** The fleet itself (the local simulator), instead of reading FLEET_CONFIG. */
  readonly fleet?: FleetConfig;
  readonly secretReader?: SecretReader;
  readonly findings?: FindingsReader;
  /** Where fetched Git commits are kept (default: the OS temp dir, `/tmp` in Lambda). */
  readonly gitCacheDir?: string;
}

const RECORD_TTL_SECONDS = 90 * 24 * 3600;

interface FleetParts {
  readonly config: FleetConfig;
  readonly clients: ClusterClients;
  readonly gateway: FleetGateway;
}

/**
 * The composition root: builds every adapter once (per cold start) from the validated config and hands
 * small ports to the domain. Fleet clients are built on the first call that needs them, so the webhook and
 * API functions never pay for them.
 */
export function createRuntime(config: Config, overrides: RuntimeOverrides = {}): App {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel });
  const clock = overrides.clock ?? systemClock;
  const table = createTableRef({
    tableName: config.tableName,
    region: config.region,
    ...(config.dynamodbEndpoint === undefined ? {} : { endpoint: config.dynamodbEndpoint }),
  });
  const secretsManager = createSecretsManagerApi({
    ...(config.secretsManagerEndpoint === undefined ? {} : { endpoint: config.secretsManagerEndpoint }),
    ...(config.stsEndpoint === undefined ? {} : { stsEndpoint: config.stsEndpoint }),
    clock,
  });
  const secretReader =
    overrides.secretReader ?? createSecretReader({ api: secretsManager, region: config.region, clock });
  const sqs = config.queueUrl === undefined ? undefined : new SQSClient({ region: config.region });
  const queue = <M>(override: Queue<M> | undefined, url: string | undefined, name: string): Queue<M> => {
    if (override !== undefined) return override;
    if (sqs === undefined || url === undefined)
      throw new ConfigError(name, 'is required outside the local stack');
    return sqsQueue<M>(sqs, url);
  };
  const pushQueue = queue(overrides.pushQueue, config.queueUrl, 'QUEUE_URL');
  const trackQueue = queue(overrides.trackQueue, config.trackQueueUrl, 'TRACK_QUEUE_URL');
  const rollouts = dynamoRolloutWriter(table, RECORD_TTL_SECONDS);
  const reader = dynamoRolloutReader(table);
  const webhookSecrets = webhookSecretSource(config, secretReader);
  const slack = createSlackTarget(config.slack, { logger });
  const findings = dynamoFindingsStore(table);
  const notifier = createRolloutNotifier({
    slack,
    store: createSlackRefs({ client: table.client, tableName: table.tableName, clock }),
    logger,
    clock,
  });
  const notify = rolloutNotice({ rollouts: reader, notifier, logger });
  const credentials = (repo: RepositoryConfig): Promise<GitCredentials | undefined> =>
    credentialsFor(repo, secretReader);

  let fleetParts: Promise<FleetParts> | undefined;
  const fleet = (): Promise<FleetParts> => {
    fleetParts ??= (async () => {
      const fleetConfig = overrides.fleet ?? (await loadFleetFile(requiredFleetPath(config)));
      const clients = createClusterClients(fleetConfig, { secrets: secretReader, logger, clock });
      return {
        config: fleetConfig,
        clients,
        gateway: createFleetGateway(fleetConfig, clients, config.refreshConcurrency),
      };
    })();
    return fleetParts;
  };
  // Best-effort reads for the preflight and the post-sync check: an unreadable list is an empty one.
  const listIn = async (
    parts: FleetParts,
    cluster: string,
    resources: readonly KubeResource[],
    namespace?: string,
  ) => {
    const client = parts.clients.get(cluster);
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
  };

  // One reader per invocation: it caches fetched commits for that invocation and is closed after it.
  const gitReader = (parts: FleetParts) =>
    createGitReader({
      repositories: parts.config.repositories.map((r) => r.url),
      cacheDir: join(overrides.gitCacheDir ?? tmpdir(), 'gitops-sync-git'),
      logger,
    });

  return {
    logger,
    maxBodyBytes: config.maxBodyBytes,
    webhook: (request, provider) =>
      handleWebhook(request, provider, {
        secrets: webhookSecrets,
        deliveries: dynamoDeliveryStore(table, config.deliveryTtlSeconds),
        queue: pushQueue,
        clock,
        logger,
        maxBodyBytes: config.maxBodyBytes,
      }),
    api: (request) =>
      handleApi(request, {
        rollouts: reader,
        findings: overrides.findings ?? findings,
        ...(config.apiToken === undefined ? {} : { apiToken: config.apiToken }),
        health: async () => ({ stage: config.stage }),
        logger,
      }),
    async fanout(message) {
      const parts = await fleet();
      const git = gitReader(parts);
      try {
        await fanoutPush(message, {
          fleet: parts.gateway,
          rollouts: { ...rollouts, listApps: reader.listApps },
          changedFiles: changedFilesResolver({
            repositories: parts.config.repositories,
            credentials,
            compare: (request) => compareCommits(request, { logger }),
            logger,
          }),
          preflight: createAppPreflight({
            fleet: parts.config,
            git,
            credentials,
            clusterStores: (cluster) => listIn(parts, cluster, [SECRET_STORES, CLUSTER_SECRET_STORES]),
            resolve: { api: secretsManager, logger, cache: createResolutionCache() },
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
      const parts = await fleet();
      await trackRollout(message, {
        rollouts: { ...reader, ...rollouts },
        live: {
          async listTargets(cluster, kinds) {
            const target = parts.gateway.cluster(cluster);
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
          clusters: parts.config.clusters,
          externalSecrets: (cluster, namespace) => listIn(parts, cluster, [EXTERNAL_SECRETS], namespace),
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
      const parts = await fleet();
      const git = gitReader(parts);
      try {
        const report = await runReconcile({
          fleet: parts.config,
          clusters: parts.clients,
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
          options: {
            graceSeconds: config.missedWebhookGraceSeconds,
            ...(options.timeBudgetMs === undefined ? {} : { timeBudgetMs: options.timeBudgetMs }),
          },
        });
        logger.info('reconcile pass done', { ...report });
        return { ...report };
      } finally {
        await git.close();
      }
    },
  };
}

function requiredFleetPath(config: Config): string {
  if (config.fleetConfigPath === undefined) {
    throw new ConfigError('FLEET_CONFIG', 'is required by fanout, track and reconcile');
  }
  return config.fleetConfigPath;
}
