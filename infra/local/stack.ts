import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { App } from '../../lib/app.js';
import { type ApiConfig, loadApiConfig } from '../../lib/composition/runtime-api.js';
import { createRuntime } from '../../lib/composition/runtime-local.js';
import type { Env } from '../../lib/config.js';
import { errorMessage } from '../../lib/errors.js';
import type { FleetConfig } from '../../lib/fleet/fleet-config.js';
import { apiHandler, webhookHandler } from '../../lib/handlers.js';
import { createLogger } from '../../lib/logger.js';
import type { Logger } from '../../lib/ports.js';
import type { ControllerOptions } from '../simulator/argocd-controller.js';
import { ecrImagesOf } from '../simulator/oci-registry-ecr.js';
import { type DefaultWorld, startDefaultWorld } from './default-world.js';
import { ensureTable, localDynamoClient, startDynalite } from './dynamodb.js';
import { startLocalEcr } from './ecr-server.js';
import { startLocalHttpServer } from './http-server.js';
import { localMetrics } from './local-metrics.js';
import { type SlackReceiver, startSlackReceiver } from './slack-receiver.js';
import { SLACK_VIEW_PATH, slackViewAnswer } from './slack-view.js';
import { type LocalQueues, localQueues, type QueueWrapper } from './stack-queues.js';

export const LOCAL_GITHUB_SECRET = 'local-github-secret';
export const LOCAL_GITLAB_TOKEN = 'local-gitlab-token';

export interface LocalStackOptions {
  /** The environment (same names as in AWS); missing local settings get local defaults. */
  readonly env: Env;
  /** Keep dynalite's data on disk here (default: in memory). */
  readonly dataDir?: string;
  /** Simulated controller timings (fast in tests, a few seconds in the demo). */
  readonly controller?: Omit<ControllerOptions, 'store' | 'resolveRevision'>;
  /** Print Slack messages (the local Slack double) here. */
  readonly print?: (line: string) => void;
  readonly logger?: Logger;
  /** Run `reconcile` on its interval, and a first pass as soon as the stack listens (default true). */
  readonly schedule?: boolean;
  /** Per-request timeout against the simulated clusters (tests of slow clusters). */
  readonly clusterTimeoutMs?: number;
  /** Wraps the in-process queues (fault injection in tests). */
  readonly wrapQueue?: QueueWrapper;
  /** Changes to the simulated fleet's file (tests: commit statuses, Argo CD links). */
  readonly fleetOverlay?: (fleet: FleetConfig) => FleetConfig;
}

export interface LocalStack {
  readonly url: string;
  readonly config: ApiConfig;
  readonly app: App;
  readonly world?: DefaultWorld;
  readonly slack?: SlackReceiver;
  /** The in-process queues; absent when the stack runs against real queues (`QUEUE_URL`, `SQS_ENDPOINT`). */
  readonly queues?: LocalQueues;
  readonly dynamodbEndpoint: string;
  /** With `schedule`: settles when the start-up reconcile pass has ended (whatever its outcome). */
  readonly firstPass?: Promise<void>;
  /** `GET` it for the messages the local Slack double received (absent when Slack is real). */
  readonly slackViewUrl?: string;
  close(): Promise<void>;
}

/**
 * The same handlers as in AWS behind a local HTTP server, with dynalite, in-process queues with SQS
 * semantics, a scheduler for `reconcile`, and (without FLEET_CONFIG) the simulated fleet.
 */
function withTimeout(fleet: FleetConfig, timeoutMs: number | undefined): FleetConfig {
  if (timeoutMs === undefined) return fleet;
  return { ...fleet, clusters: fleet.clusters.map((c) => ({ ...c, timeoutMs })) };
}

/**
 * Dummy AWS credentials for the simulated world only (its doubles need a signature, not a real one). With
 * a real fleet the user's own credentials (environment, profile, SSO) reach the real AWS APIs untouched;
 * dynalite gets its own dummy credentials from the table adapter either way.
 */
export function localAwsCredentials(env: Env, realFleet: boolean): Record<string, string> {
  if (realFleet || env.AWS_ACCESS_KEY_ID !== undefined) return {};
  return { AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' };
}

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  try {
    const env: Record<string, string | undefined> = { TABLE_NAME: 'gitops-sync-local', ...options.env };
    // The stack's own dynalite: its table may be made again when the table file has gained an index.
    const ownDynamo = env.DYNAMODB_ENDPOINT === undefined;
    if (env.DYNAMODB_ENDPOINT === undefined) {
      if (options.dataDir !== undefined) mkdirSync(options.dataDir, { recursive: true });
      const dynamo = await startDynalite(
        options.dataDir === undefined ? {} : { dataDir: join(options.dataDir, 'dynamodb') },
      );
      closers.push(() => dynamo.close());
      env.DYNAMODB_ENDPOINT = dynamo.endpoint;
    }
    if (env.GITHUB_WEBHOOK_SECRET === undefined && env.WEBHOOK_SECRET_ARN === undefined)
      env.GITHUB_WEBHOOK_SECRET = LOCAL_GITHUB_SECRET;
    if (env.GITLAB_WEBHOOK_TOKEN === undefined && env.WEBHOOK_SECRET_ARN === undefined)
      env.GITLAB_WEBHOOK_TOKEN = LOCAL_GITLAB_TOKEN;

    const realFleet = env.FLEET_CONFIG !== undefined || env.FLEET_SOURCE !== undefined;
    let world: DefaultWorld | undefined;
    if (!realFleet) {
      world = await startDefaultWorld(
        options.controller === undefined ? {} : { controller: options.controller },
      );
      closers.push(() => (world as DefaultWorld).close());
      env.SECRETS_MANAGER_ENDPOINT ??= world.secretsManager.endpoint;
      env.STS_ENDPOINT ??= world.secretsManager.endpoint;
      // Reconcile's ECR catch-up, when configured, lists the simulated registry, never the real ECR.
      if (env.ECR_REPOSITORY_ARNS !== undefined && env.ECR_ENDPOINT === undefined) {
        const ecr = await startLocalEcr({ state: ecrImagesOf(world.fleet.registry) });
        closers.push(() => ecr.close());
        env.ECR_ENDPOINT = ecr.endpoint;
      }
    }
    let publicUrl: string | undefined;
    let slack: SlackReceiver | undefined;
    const slackGiven = [env.SLACK_BOT_TOKEN, env.SLACK_WEBHOOK_URL, env.SLACK_SECRET_ARN].some(
      (v) => v !== undefined,
    );
    if (!slackGiven) {
      // One short line per message on the console; the messages themselves are read at the view's URL.
      const viewUrl = () => (publicUrl === undefined ? undefined : `${publicUrl}${SLACK_VIEW_PATH}`);
      slack = await startSlackReceiver(options.print === undefined ? {} : { print: options.print, viewUrl });
      closers.push(() => (slack as SlackReceiver).close());
      Object.assign(env, {
        SLACK_BOT_TOKEN: 'xoxb-local',
        SLACK_CHANNEL: '#deploys',
        SLACK_API_URL: slack.apiUrl,
      });
    }
    Object.assign(env, localAwsCredentials(env, realFleet));
    for (const key of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) {
      if (env[key] !== undefined) process.env[key] ??= env[key];
    }

    const config = loadApiConfig(env);
    const dynamo = localDynamoClient(config.dynamodbEndpoint ?? '');
    await ensureTable(dynamo, config.tableName, { rebuild: ownDynamo });
    dynamo.destroy();

    const queues = localQueues(config, options.wrapQueue);
    const logger = options.logger ?? createLogger({ level: config.logLevel });
    const overlay = options.fleetOverlay ?? ((fleet: FleetConfig) => fleet);
    const app = createRuntime(config, {
      logger,
      // EMF lines are for CloudWatch: locally only with LOCAL_METRICS=1.
      metrics: localMetrics(env),
      ...queues.overrides,
      fleetMode: 'local',
      ...(world === undefined
        ? {}
        : { fleet: overlay(withTimeout(world.fleetConfig, options.clusterTimeoutMs)) }),
      // Commit statuses link to this server's pages unless PUBLIC_URL says otherwise.
      publicUrl: () => publicUrl,
    });
    // A real fleet is checked now: a broken file stops start-up listing every problem.
    if (realFleet) await app.fleetReady?.();
    const source = async () => app;
    queues.start(source, logger);
    closers.push(queues.stop);

    const http = await startLocalHttpServer(
      {
        webhook: webhookHandler(source),
        api: apiHandler(source),
        local: (method, path) => slackViewAnswer(method, path, slack),
      },
      { port: config.port, maxBodyBytes: config.maxBodyBytes },
    );
    closers.push(() => http.close());
    publicUrl = http.url;

    let firstPass: Promise<void> | undefined;
    if (options.schedule !== false) {
      let running = false;
      const pass = () => {
        running = true;
        return app
          .reconcile()
          .then(() => undefined)
          .catch((error: unknown) => logger.warn('reconcile pass failed', { error: errorMessage(error) }))
          .finally(() => {
            running = false;
          });
      };
      // A first pass now, so findings and missed pushes show within seconds of start-up, not an interval later.
      firstPass = pass();
      const timer = setInterval(() => {
        if (!running) void pass();
      }, config.reconcileIntervalSeconds * 1000);
      // The sweep on its own schedule, as in AWS (every minute; never beside a running pass here).
      const sweeper = setInterval(() => {
        if (running) return;
        running = true;
        app
          .reconcile({ sweepOnly: true })
          .catch((error: unknown) => logger.warn('sweep failed', { error: errorMessage(error) }))
          .finally(() => {
            running = false;
          });
      }, Math.min(60, config.reconcileIntervalSeconds) * 1000);
      closers.push(async () => {
        clearInterval(timer);
        clearInterval(sweeper);
      });
    }

    return {
      url: http.url,
      config,
      app,
      ...(world === undefined ? {} : { world }),
      ...(slack === undefined ? {} : { slack }),
      ...(queues.queues === undefined ? {} : { queues: queues.queues }),
      dynamodbEndpoint: config.dynamodbEndpoint ?? '',
      ...(firstPass === undefined ? {} : { firstPass }),
      ...(slack === undefined ? {} : { slackViewUrl: `${http.url}${SLACK_VIEW_PATH}` }),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
