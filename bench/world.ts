import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { MemoryQueue } from '../infra/local/memory-queue.js';
import type { App } from '../lib/app.js';
import { loadApiConfig } from '../lib/composition/runtime-api.js';
import { createRuntime } from '../lib/composition/runtime-local.js';
import type { FleetConfig } from '../lib/fleet/fleet-config.js';
import { type Logger, type Metrics, noMetrics } from '../lib/ports.js';
import type { FanoutMessage, TrackMessage } from '../lib/queue/messages.js';

export interface BenchWorld {
  readonly app: App;
  /** Fields of the `cluster polled` lines track logged (the rest is dropped: 5,000 apps log a lot). */
  readonly polled: Record<string, unknown>[];
  /** The Git fetches of commits the runtime logged (`git commit fetched`): when each ended, and its wall time. */
  readonly fetches: { readonly sha: string; readonly endedAt: number; readonly ms: number }[];
  /** The repository every synthetic app deploys from (served by the doubles' Git server). */
  readonly repoURL: string;
  /** The local DynamoDB the app's table is in (for a bench that reads what is stored). */
  readonly dynamodb: { readonly endpoint: string; readonly tableName: string };
  readonly queues: { push: MemoryQueue<FanoutMessage>; track: MemoryQueue<TrackMessage> };
  /** Tells the doubles' process something (`tick`, `reset`) and waits for it to be done. */
  command(line: string): Promise<void>;
  /** API calls by verb since the last `reset`, and when the last PATCH was answered (epoch ms). */
  stats(): Promise<{ list: number; patch: number; lastPatchAt: number }>;
  /** Sends the doubles' process a command and returns its one-line answer (`patches`). */
  ask(line: string): Promise<string>;
  /** Commits a change to one service of the repository; the new commit is the branch head. */
  commit(service: number): Promise<{ before: string; after: string; path: string }>;
  close(): Promise<void>;
}

/** Commit `sha`'s rollout summary, as the API's `GET /rollouts/{sha}` answers it. */
export async function rolloutSummary<T>(app: App, sha: string): Promise<T> {
  const answer = await app.api({
    method: 'GET',
    path: `/rollouts/${sha}`,
    headers: {},
    query: {},
    pathParameters: {},
    body: Buffer.alloc(0),
  });
  return JSON.parse(String(answer.body ?? '{}')) as T;
}

/** The runtime in this process; dynalite and the synthetic simulated fleet in a child process. */
export async function startBenchWorld(
  options: {
    clusters?: number;
    applications?: number;
    latencyMs?: number;
    realistic?: boolean;
    /** Apps without `manifest-generate-paths`: every push of the repository refreshes each of them. */
    unfiltered?: boolean;
    /** How long a synced app stays Progressing (ms) before the controller's next tick makes it Healthy. */
    healthMs?: number;
    /** Release waves over the fleet's clusters (their names: the doubles' own). */
    waves?: (clusters: readonly string[]) => FleetConfig['waves'];
    /** The runtime's logger (default: one that keeps only track's `cluster polled` fields in `polled`). */
    logger?: Logger;
    metrics?: Metrics;
  } = {},
): Promise<BenchWorld> {
  process.env.AWS_ACCESS_KEY_ID ??= 'local';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
  const child: ChildProcessByStdio<Writable, Readable, null> = spawn(
    process.execPath,
    [
      // The doubles hold every simulated Application (20,000 realistic ones are gigabytes of objects).
      '--max-old-space-size=12288',
      // BENCH_DOUBLES_PROF=<dir>: a CPU profile of the doubles (where the benchmark's wall time goes).
      ...(process.env.BENCH_DOUBLES_PROF === undefined
        ? []
        : ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_DOUBLES_PROF}`]),
      '--import',
      'tsx',
      'bench/doubles.ts',
      '--clusters',
      String(options.clusters ?? 0),
      '--apps',
      String(options.applications ?? 0),
      '--latency',
      String(options.latencyMs ?? 0),
      ...(options.realistic === true ? ['--realistic'] : []),
      ...(options.unfiltered === true ? ['--unfiltered'] : []),
      ...(options.healthMs === undefined ? [] : ['--health-ms', String(options.healthMs)]),
    ],
    // stderr is inherited: nothing reads a pipe, and a full one would block the doubles.
    { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS: '' } },
  );
  const lines: Interface = createInterface({ input: child.stdout });
  const iterator = lines[Symbol.asyncIterator]();
  const next = async () => String((await iterator.next()).value ?? '');
  const started = JSON.parse(await next()) as { dynamodb: string; fleet?: FleetConfig; repoURL: string };
  const config = loadApiConfig({
    TABLE_NAME: 'bench',
    DYNAMODB_ENDPOINT: started.dynamodb,
    GITHUB_WEBHOOK_SECRET: 'bench-secret',
    LOG_LEVEL: 'SILENT',
    // dynalite shares one event loop with 5,000-20,000 simulated Applications: it can take seconds to
    // accept a connection where DynamoDB would not.
    AWS_REQUEST_TIMEOUT_MS: '60000',
    AWS_CONNECT_TIMEOUT_MS: '30000',
  });
  const queues = {
    push: new MemoryQueue<FanoutMessage>('push'),
    track: new MemoryQueue<TrackMessage>('track'),
  };
  const polled: Record<string, unknown>[] = [];
  const fetches: { sha: string; endedAt: number; ms: number }[] = [];
  const logger: Logger = {
    debug: (message, fields) => {
      if (message === 'git commit fetched')
        fetches.push({ sha: String(fields?.sha), endedAt: Date.now(), ms: Number(fields?.ms) });
    },
    info: (message, fields) => {
      if (message === 'cluster polled') polled.push({ ...fields });
    },
    warn: () => {},
    error: () => {},
    child: () => logger,
  };
  const app = createRuntime(config, {
    logger: options.logger ?? logger,
    // EMF lines on stdout would mix with the benchmark's own JSON rows.
    metrics: options.metrics ?? noMetrics,
    pushQueue: queues.push,
    trackQueue: queues.track,
    // The webhook refuses pushes without a valid fleet: a world with no clusters still has one.
    fleet: withWaves(
      started.fleet ?? { clusters: [], repositories: [], secretPolicy: 'block', secretStores: [] },
      options.waves,
    ),
  });
  return {
    app,
    polled,
    fetches,
    repoURL: started.repoURL,
    dynamodb: { endpoint: started.dynamodb, tableName: 'bench' },
    queues,
    async command(line) {
      child.stdin.write(`${line}\n`);
      await next();
    },
    async stats() {
      child.stdin.write('stats\n');
      return JSON.parse(await next()) as { list: number; patch: number; lastPatchAt: number };
    },
    async ask(line) {
      child.stdin.write(`${line}\n`);
      return next();
    },
    async commit(service) {
      child.stdin.write(`commit ${service}\n`);
      const [before = '', after = '', path = ''] = (await next()).split(' ');
      return { before, after, path };
    },
    async close() {
      child.stdin.end();
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

function withWaves(
  fleet: FleetConfig,
  waves: ((clusters: readonly string[]) => FleetConfig['waves']) | undefined,
) {
  const planned = waves?.(fleet.clusters.map((c) => c.name));
  return planned === undefined ? fleet : { ...fleet, waves: planned };
}
