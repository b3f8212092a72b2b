import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from '../app.js';
import { feedbackCredentials } from '../check-run/app-credentials.js';
import { githubCheckRunApi } from '../check-run/check-run-api.js';
import { checkRunNotice } from '../check-run/check-run-notice.js';
import { githubAppTokens, type InstallationTokens } from '../check-run/github-app-token.js';
import { commitStatusNotice } from '../commit-status/commit-status-notice.js';
import { postStatus } from '../commit-status/post-status.js';
import { deploymentNotice } from '../deployments/deployment-notice.js';
import { errorMessage } from '../errors.js';
import { sharedRead } from '../feedback/repository.js';
import type { FleetConfig, RepositoryConfig } from '../fleet/fleet-config.js';
import { createFleetGateway } from '../fleet/fleet-gateway.js';
import type { FleetGateway } from '../fleet/gateway.js';
import { credentialsFor, type GitCredentials } from '../git/credentials.js';
import { callHost } from '../http/host-call.js';
import { type ClusterClients, createClusterClients } from '../kubernetes/cluster-clients.js';
import type { KubeResource } from '../kubernetes/resources.js';
import { createRolloutNotifier, type SlackTarget } from '../notify/rollout-notifier.js';
import { createSlackTarget } from '../notify/slack-target.js';
import { rolloutNotice } from '../rollouts/rollout-notice.js';
import { dynamoCheckRuns } from '../store/check-runs.js';
import { dynamoClusterLeases } from '../store/cluster-leases.js';
import { dynamoPostedStatuses } from '../store/commit-statuses.js';
import { dynamoDeployments } from '../store/deployments.js';
import { dynamoOpenRollouts } from '../store/open-rollouts.js';
import { dynamoRefPushes } from '../store/ref-pushes.js';
import { dynamoRolloutDigest } from '../store/rollout-digest.js';
import { createSlackRefs } from '../store/slack-refs.js';
import { dynamoClusterTrackers } from '../store/trackers.js';
import { RECORD_TTL_SECONDS } from './runtime-adapters.js';
import type { SharedRuntime } from './runtime-model.js';
import { type ReleaseParts, releaseParts } from './runtime-release.js';

export type FleetFunctions = Pick<App, 'fanout' | 'track' | 'reconcile'>;

/** What one Lambda function builds of the fleet functions: its own (`runtime-fanout.ts`, ...). */
export type FleetBuilder = (shared: SharedRuntime) => Promise<Partial<FleetFunctions>>;

const TRACKER_TTL_SECONDS = 7 * 24 * 3600;
const REF_PUSH_TTL_SECONDS = 24 * 3600;
/** How long what was shown on the Git host (statuses, deployments) is remembered under the rollout. */
const FEEDBACK_TTL_SECONDS = 90 * 24 * 3600;

/**
 * What fanout, track and reconcile share for one fleet: the cluster clients, the stores, the notices. Each
 * function's own parts (Git, the preflight, the audit) live in `runtime-fanout.ts`, `runtime-track.ts` and
 * `runtime-reconcile.ts`, so each Lambda bundle holds only its function's code.
 */
export interface FleetContext extends SharedRuntime {
  readonly fleetConfig: FleetConfig;
  readonly clients: ClusterClients;
  readonly gateway: FleetGateway;
  readonly slack: SlackTarget;
  readonly trackers: ReturnType<typeof dynamoClusterTrackers>;
  readonly open: ReturnType<typeof dynamoOpenRollouts>;
  readonly leases: ReturnType<typeof dynamoClusterLeases>;
  readonly refPushes: ReturnType<typeof dynamoRefPushes>;
  /** Longer than any gap between two polls of a chain, so only a lost chain ever lets its lease run out. */
  readonly chainLeaseSeconds: number;
  /** Release control: waves, holds, the gate. */
  readonly release: ReleaseParts;
  credentials(repo: RepositoryConfig): Promise<GitCredentials | undefined>;
  /** The fleet's GitHub App installation tokens (`githubApp`), when it has one. */
  readonly githubApp?: InstallationTokens;
  /** The Slack message, the commit status, the check run and the deployments of a rollout; never throws. */
  notify(sha: string): Promise<void>;
  /** A best-effort list for the preflight and the post-sync check: an unreadable list is an empty one. */
  listIn(cluster: string, resources: readonly KubeResource[], namespace?: string): Promise<unknown[]>;
  /** A part two functions share when built together (the local stack), made by whichever asks first. */
  part<T>(name: string, make: () => T): T;
}

export async function fleetContext(shared: SharedRuntime): Promise<FleetContext> {
  const { config, overrides, logger, clock, table, secretReader, reader, metrics } = shared;
  const fleetConfig = await shared.fleetSource.current();
  const clients = createClusterClients(fleetConfig, {
    secrets: secretReader,
    logger,
    clock,
    eks: {
      ...(config.eksEndpoint === undefined ? {} : { endpoint: config.eksEndpoint }),
      http: { requestTimeoutMs: config.awsRequestTimeoutMs, connectionTimeoutMs: config.awsConnectTimeoutMs },
    },
  });
  // A Slack credential in Secrets Manager is read through the TTL-cached reader (Powertools Parameters).
  const slack = createSlackTarget(config.slack, { logger, secrets: shared.cachedSecrets });
  const pageUrl = (sha: string) => {
    const base = config.publicUrl ?? overrides.publicUrl?.();
    return base === undefined ? undefined : `${base}/ui/rollouts/${sha}`;
  };
  const notifier = createRolloutNotifier({
    slack,
    pageUrl,
    store: createSlackRefs({ client: table.client, tableName: table.tableName, clock }),
    logger,
    clock,
    fleet: fleetConfig,
  });
  const credentials = (repo: RepositoryConfig): Promise<GitCredentials | undefined> =>
    credentialsFor(repo, secretReader);
  const githubApp =
    fleetConfig.githubApp === undefined
      ? undefined
      : githubAppTokens({ app: fleetConfig.githubApp, secrets: secretReader });
  if (githubApp !== undefined && fleetConfig.repositories.some((r) => r.checkRun === true)) {
    // Said once at cold start, not only as each rollout's feedback error: a key that cannot sign.
    await githubApp.checkKey().catch((error: unknown) => {
      logger.error('check runs will fail: the GitHub App key is unusable', { error: errorMessage(error) });
    });
  }
  // Statuses and deployments on GitHub post as the App when there is one (SPEC).
  const feedbackAuth = feedbackCredentials(githubApp, credentials, logger);
  // The notices of one change run side by side: one read of the rollout serves them all.
  const notices = sharedRead(reader);
  const noticeReader = notices.reader;
  // Slack reads the summary and a bounded list of the apps it names, not every app (lib/store/rollout-digest.ts).
  const digests = dynamoRolloutDigest(table);
  const slackNotice = rolloutNotice({ rollouts: noticeReader, digests, notifier, logger, metrics, clock });
  const statusNotice = commitStatusNotice({
    rollouts: noticeReader,
    digests,
    repositories: fleetConfig.repositories,
    credentials: feedbackAuth,
    posted: dynamoPostedStatuses(table, FEEDBACK_TTL_SECONDS),
    post: (request) => postStatus(request),
    pageUrl,
    logger,
    metrics,
  });
  const deployNotice = deploymentNotice({
    rollouts: noticeReader,
    digests,
    repositories: fleetConfig.repositories,
    clusters: fleetConfig.clusters,
    credentials: feedbackAuth,
    ledger: dynamoDeployments(table, FEEDBACK_TTL_SECONDS),
    call: (request) => callHost(request),
    pageUrl,
    logger,
    metrics,
  });
  const checkRunNotices =
    githubApp === undefined
      ? async () => undefined
      : checkRunNotice({
          rollouts: noticeReader,
          digests,
          repositories: fleetConfig.repositories,
          store: dynamoCheckRuns(table, 90 * 24 * 3600, clock),
          api: githubCheckRunApi({ tokens: githubApp }),
          pageUrl,
          logger,
          metrics,
        });
  const parts = new Map<string, unknown>();
  const open = dynamoOpenRollouts(table, RECORD_TTL_SECONDS);
  return {
    ...shared,
    fleetConfig,
    clients,
    gateway: createFleetGateway(fleetConfig, clients, config.refreshConcurrency),
    slack,
    trackers: dynamoClusterTrackers(table, TRACKER_TTL_SECONDS),
    open,
    release: releaseParts(shared, fleetConfig, open, (cluster, resources, namespace) =>
      listBestEffort(clients, cluster, resources, namespace),
    ),
    // Kept a day past the records written under them: a missing lease item means nothing is recorded.
    leases: dynamoClusterLeases(table, RECORD_TTL_SECONDS + 86_400),
    refPushes: dynamoRefPushes(table, REF_PUSH_TTL_SECONDS),
    chainLeaseSeconds: Math.max(config.trackChainLeaseSeconds, config.trackMaxIntervalSeconds + 5),
    credentials,
    ...(githubApp === undefined ? {} : { githubApp }),
    notify: async (sha) => {
      await notices.during(sha, () =>
        Promise.all([slackNotice(sha), statusNotice(sha), checkRunNotices(sha), deployNotice(sha)]),
      );
    },
    listIn: (cluster, resources, namespace) => listBestEffort(clients, cluster, resources, namespace),
    part<T>(name: string, make: () => T): T {
      if (!parts.has(name)) parts.set(name, make());
      return parts.get(name) as T;
    },
  };
}

/** Where fetched Git commits are kept (the OS temp dir, `/tmp` in Lambda, unless overridden). */
export function gitCacheDir(context: FleetContext): string {
  return join(context.overrides.gitCacheDir ?? tmpdir(), 'gitops-sync-git');
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
