import { getHeapStatistics } from 'node:v8';
import { MemoryQueue } from '../infra/local/memory-queue.js';
import type { FleetApp, WebhookApp } from '../lib/app.js';
import {
  createFanoutApp,
  createReconcileApp,
  createTrackApp,
} from '../lib/composition/runtime-fleet-apps.js';
import { createWebhookApp } from '../lib/composition/runtime-webhook.js';
import { loadConfig } from '../lib/config.js';
import { webhookHandler } from '../lib/handlers.js';
import { type Logger, noMetrics } from '../lib/ports.js';
import type { FanoutMessage, TrackMessage } from '../lib/queue/messages.js';
import type { ChildReply, ChildRequest, FunctionName, InvokeResult, MemoryResult } from './fleet-model.js';
import { signedPushOf } from './signed-push.js';

// One function of the fleet bench in a process of its own (`bench/fleet.ts` bundles and starts one per
// function, under a 256 MB Lambda's heap), built by that function's own composition as its Lambda bundle
// builds it, against the shared doubles process. It answers bench/fleet.ts's requests over IPC, one at a
// time: the queues are in-process here; what an invocation sends goes back to the parent, which hands it to
// the next function as SQS would.

/** serverless.yml's reconcile `timeout` (600 s) less the 30 s functions/reconcile.ts keeps for writing. */
const RECONCILE_BUDGET_MS = 570_000;
const MB = 1024 * 1024;

let fn: FunctionName | undefined;
let changed = 0;
const logger: Logger = {
  debug: () => {},
  info: (message, fields) => {
    if (message === 'cluster polled') changed += Number(fields?.changed ?? 0);
  },
  warn: () => {},
  error: () => {},
  child: () => logger,
};
const queues = {
  push: new MemoryQueue<FanoutMessage>('push'),
  track: new MemoryQueue<TrackMessage>('track'),
};
let fleetApp: FleetApp | undefined;
let webhook: ReturnType<typeof webhookHandler> | undefined;
let repoURL = '';
let idleRssMb = 0;
let peakRss = 0;
let peakHeap = 0;
let sampler: NodeJS.Timeout | undefined;

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

async function handle(request: ChildRequest): Promise<unknown> {
  if (request.do === 'init') {
    fn = request.fn;
    repoURL = request.started.repoURL;
    const config = loadConfig({
      TABLE_NAME: 'bench',
      DYNAMODB_ENDPOINT: request.started.dynamodb,
      GITHUB_WEBHOOK_SECRET: 'bench-secret',
      LOG_LEVEL: 'SILENT',
      // dynalite shares one event loop with up to 100,000 simulated Applications: it can take seconds to
      // accept a connection where DynamoDB would not.
      AWS_REQUEST_TIMEOUT_MS: '60000',
      AWS_CONNECT_TIMEOUT_MS: '30000',
    });
    const overrides = {
      logger,
      metrics: noMetrics,
      pushQueue: queues.push,
      trackQueue: queues.track,
      fleet: request.started.fleet ?? {
        clusters: [],
        repositories: [],
        secretPolicy: 'block',
        secretStores: [],
      },
    } as const;
    if (fn === 'webhook') {
      const app: WebhookApp = createWebhookApp(config, overrides);
      webhook = webhookHandler(async () => app);
    } else {
      const create = fn === 'fanout' ? createFanoutApp : fn === 'track' ? createTrackApp : createReconcileApp;
      fleetApp = create(config, overrides);
      await fleetApp.fleetReady?.();
    }
    global.gc?.();
    idleRssMb = process.memoryUsage.rss() / MB;
    return {};
  }
  if (request.do === 'measure') {
    global.gc?.();
    peakRss = 0;
    peakHeap = 0;
    sampler ??= setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
      peakHeap = Math.max(peakHeap, getHeapStatistics().used_heap_size);
    }, 10);
    sampler.unref();
    return {};
  }
  if (request.do === 'memory') {
    const memory: MemoryResult = {
      peakRssMb: Math.max(peakRss, process.memoryUsage.rss()) / MB,
      peakHeapMb: Math.max(peakHeap, getHeapStatistics().used_heap_size) / MB,
      idleRssMb,
      maxRssMb: process.resourceUsage().maxRSS / 1024,
    };
    return memory;
  }
  return invoke(request.messages ?? [], request.commit);
}

async function invoke(
  messages: readonly unknown[],
  commit: { before: string; after: string; path: string } | undefined,
): Promise<InvokeResult> {
  changed = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const itemMs: number[] = [];
  const timed = async (work: Promise<unknown>) => {
    await work;
    itemMs.push(performance.now() - start);
  };
  let result: Record<string, unknown> | undefined;
  let status: number | undefined;
  if (fn === 'webhook') {
    if (webhook === undefined || commit === undefined) throw new Error('webhook: no handler or commit');
    status = (await webhook(signedPushOf(repoURL, commit))).statusCode;
  } else if (fleetApp === undefined) {
    throw new Error('not initialised');
  } else if (fn === 'fanout') {
    const app = fleetApp;
    await Promise.all(messages.map((m) => timed(app.fanout(m as FanoutMessage))));
  } else if (fn === 'track') {
    const app = fleetApp;
    await Promise.all(messages.map((m) => timed(app.track(m as TrackMessage))));
  } else {
    result = await fleetApp.reconcile(
      fn === 'sweep' ? { sweepOnly: true } : { timeBudgetMs: RECONCILE_BUDGET_MS },
    );
  }
  return {
    wall: performance.now() - start,
    cpu: cpuMs(cpu),
    itemMs,
    changed,
    push: queues.push.takeAll(),
    track: queues.track.takeAll(),
    ...(result === undefined ? {} : { result }),
    ...(status === undefined ? {} : { status }),
  };
}

// One request at a time, in order: the parent waits for each answer.
let queue: Promise<void> = Promise.resolve();
process.on('message', (request: ChildRequest) => {
  queue = queue.then(async () => {
    let reply: ChildReply;
    try {
      reply = { ok: await handle(request) };
    } catch (error) {
      reply = { error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
    }
    process.send?.(reply);
  });
});
process.on('disconnect', () => process.exit(0));
