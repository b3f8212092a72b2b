import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import { MemoryQueue } from '../infra/local/memory-queue.js';
import type { App } from '../lib/app.js';
import { loadConfig } from '../lib/config.js';
import type { FleetConfig } from '../lib/fleet/fleet-config.js';
import { createMemoryLogger } from '../lib/logger.js';
import type { FanoutMessage, TrackMessage } from '../lib/queue/messages.js';
import { createRuntime } from '../lib/runtime.js';

export interface BenchWorld {
  readonly app: App;
  /** The repository every synthetic app deploys from (served by the doubles' Git server). */
  readonly repoURL: string;
  readonly queues: { push: MemoryQueue<FanoutMessage>; track: MemoryQueue<TrackMessage> };
  /** Tells the doubles' process something (`tick`) and waits for it to be done. */
  command(line: string): Promise<void>;
  /** Commits a change to one service of the repository; the new commit is the branch head. */
  commit(service: number): Promise<{ before: string; after: string; path: string }>;
  close(): Promise<void>;
}

/** The runtime in this process; dynalite and the synthetic simulated fleet in a child process. */
export async function startBenchWorld(
  options: { clusters?: number; applications?: number } = {},
): Promise<BenchWorld> {
  process.env.AWS_ACCESS_KEY_ID ??= 'local';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'bench/doubles.ts',
      '--clusters',
      String(options.clusters ?? 0),
      '--apps',
      String(options.applications ?? 0),
    ],
    { stdio: 'pipe', env: { ...process.env, NODE_OPTIONS: '' } },
  );
  const lines: Interface = createInterface({ input: child.stdout });
  const iterator = lines[Symbol.asyncIterator]();
  const next = async () => String((await iterator.next()).value ?? '');
  const started = JSON.parse(await next()) as { dynamodb: string; fleet?: FleetConfig; repoURL: string };
  const config = loadConfig({
    TABLE_NAME: 'bench',
    DYNAMODB_ENDPOINT: started.dynamodb,
    GITHUB_WEBHOOK_SECRET: 'bench-secret',
    LOG_LEVEL: 'SILENT',
  });
  const queues = {
    push: new MemoryQueue<FanoutMessage>('push'),
    track: new MemoryQueue<TrackMessage>('track'),
  };
  const app = createRuntime(config, {
    logger: createMemoryLogger(),
    pushQueue: queues.push,
    trackQueue: queues.track,
    ...(started.fleet === undefined ? {} : { fleet: started.fleet }),
  });
  return {
    app,
    repoURL: started.repoURL,
    queues,
    async command(line) {
      child.stdin.write(`${line}\n`);
      await next();
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
