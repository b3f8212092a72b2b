import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { App } from '../../lib/app.js';
import { type Config, type Env, loadConfig } from '../../lib/config.js';
import { errorMessage } from '../../lib/errors.js';
import type { FleetConfig } from '../../lib/fleet/fleet-config.js';
import { apiHandler, fanoutHandler, trackHandler, webhookHandler } from '../../lib/handlers.js';
import { createLogger } from '../../lib/logger.js';
import type { Logger } from '../../lib/ports.js';
import type { PushMessage, TrackMessage } from '../../lib/queue/messages.js';
import { createRuntime } from '../../lib/runtime.js';
import type { ControllerOptions } from '../simulator/argocd-controller.js';
import { type DefaultWorld, startDefaultWorld } from './default-world.js';
import { ensureTable, localDynamoClient, startDynalite } from './dynamodb.js';
import { startLocalHttpServer } from './http-server.js';
import { MemoryQueue } from './memory-queue.js';
import { type SlackReceiver, startSlackReceiver } from './slack-receiver.js';

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
  /** Run `reconcile` on its interval (default true). */
  readonly schedule?: boolean;
  /** Per-request timeout against the simulated clusters (tests of slow clusters). */
  readonly clusterTimeoutMs?: number;
}

export interface LocalStack {
  readonly url: string;
  readonly config: Config;
  readonly app: App;
  readonly world?: DefaultWorld;
  readonly slack?: SlackReceiver;
  readonly queues: { readonly push: MemoryQueue<PushMessage>; readonly track: MemoryQueue<TrackMessage> };
  readonly dynamodbEndpoint: string;
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

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  try {
    const env: Record<string, string | undefined> = { TABLE_NAME: 'gitops-sync-local', ...options.env };
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

    let world: DefaultWorld | undefined;
    if (env.FLEET_CONFIG === undefined) {
      world = await startDefaultWorld(
        options.controller === undefined ? {} : { controller: options.controller },
      );
      closers.push(() => (world as DefaultWorld).close());
      env.SECRETS_MANAGER_ENDPOINT ??= world.secretsManager.endpoint;
      env.STS_ENDPOINT ??= world.secretsManager.endpoint;
    }
    let slack: SlackReceiver | undefined;
    const slackGiven = [env.SLACK_BOT_TOKEN, env.SLACK_WEBHOOK_URL, env.SLACK_SECRET_ARN].some(
      (v) => v !== undefined,
    );
    if (!slackGiven) {
      slack = await startSlackReceiver(options.print === undefined ? {} : { print: options.print });
      closers.push(() => (slack as SlackReceiver).close());
      Object.assign(env, {
        SLACK_BOT_TOKEN: 'xoxb-local',
        SLACK_CHANNEL: '#deploys',
        SLACK_API_URL: slack.apiUrl,
      });
    }
    // The AWS SDK wants credentials even for local endpoints; dynalite and the doubles do not check them.
    env.AWS_ACCESS_KEY_ID ??= 'local';
    env.AWS_SECRET_ACCESS_KEY ??= 'local';
    for (const key of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) process.env[key] ??= env[key];

    const config = loadConfig(env);
    const dynamo = localDynamoClient(config.dynamodbEndpoint ?? '');
    await ensureTable(dynamo, config.tableName);
    dynamo.destroy();

    const queues = {
      push: new MemoryQueue<PushMessage>('fanout'),
      track: new MemoryQueue<TrackMessage>('track'),
    };
    const logger = options.logger ?? createLogger({ level: config.logLevel });
    const app = createRuntime(config, {
      logger,
      pushQueue: queues.push,
      trackQueue: queues.track,
      ...(world === undefined ? {} : { fleet: withTimeout(world.fleetConfig, options.clusterTimeoutMs) }),
    });
    const source = async () => app;
    queues.push.start(fanoutHandler(source), {
      batchSize: 5,
      visibilityTimeoutMs: 120_000,
      maxReceiveCount: 5,
    });
    queues.track.start(trackHandler(source), {
      batchSize: 10,
      visibilityTimeoutMs: 60_000,
      maxReceiveCount: 5,
    });
    closers.push(async () => {
      // Let the batches in flight finish before the stores and servers they use go away.
      await Promise.all([queues.push.stop(), queues.track.stop()]);
    });

    const http = await startLocalHttpServer(
      { webhook: webhookHandler(source), api: apiHandler(source) },
      { port: config.port, maxBodyBytes: config.maxBodyBytes },
    );
    closers.push(() => http.close());

    if (options.schedule !== false) {
      let running = false;
      const timer = setInterval(() => {
        if (running) return;
        running = true;
        app
          .reconcile()
          .catch((error: unknown) => logger.warn('reconcile pass failed', { error: errorMessage(error) }))
          .finally(() => {
            running = false;
          });
      }, config.reconcileIntervalSeconds * 1000);
      closers.push(async () => clearInterval(timer));
    }

    return {
      url: http.url,
      config,
      app,
      ...(world === undefined ? {} : { world }),
      ...(slack === undefined ? {} : { slack }),
      queues,
      dynamodbEndpoint: config.dynamodbEndpoint ?? '',
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
