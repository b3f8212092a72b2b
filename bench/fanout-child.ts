import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { fanoutHandler } from '../lib/handlers.js';
import type { FanoutMessage } from '../lib/queue/messages.js';
import { countDynamoRequests } from './dynamo-counter.js';
import { pushMessage } from './push-message.js';
import { startBenchWorld } from './world.js';

// Fan-out as SQS hands it to Lambda (`bench/fanout.ts` bundles and starts it): the plan, then the work items
// through the fan-out Lambda handler (`fanoutHandler`: Powertools Batch, records in parallel) in batches of
// `--batch` (serverless.yml's batchSize, 5) or one at a time (`--batch 1`). Prints one JSON line per measured
// run. Runs unbundled too: `node --import tsx --cpu-prof bench/fanout-child.ts --clusters 20 --apps 1000 ...`.
const { values } = parseArgs({
  options: {
    clusters: { type: 'string' },
    apps: { type: 'string' },
    latency: { type: 'string' },
    runs: { type: 'string' },
    batches: { type: 'string' },
    // Apps without `manifest-generate-paths`, each push naming its one changed file: every app is still
    // refreshed, and the preflight knows which directories the push left alone.
    unfiltered: { type: 'boolean' },
  },
});
const counter = countDynamoRequests();
const world = await startBenchWorld({
  clusters: Number(values.clusters),
  applications: Number(values.apps),
  latencyMs: Number(values.latency ?? 20),
  realistic: true,
  unfiltered: values.unfiltered === true,
});
const handler = fanoutHandler(async () => world.app);
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
let sequence = 0;
const record = (message: FanoutMessage): SQSRecord => {
  sequence += 1;
  return {
    messageId: `bench-${sequence}`,
    receiptHandle: `bench-${sequence}`,
    body: JSON.stringify(message),
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(Date.now()),
      SenderId: 'bench',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:fanout',
    awsRegion: 'us-east-1',
  };
};
/** One invocation of the fan-out function: its SQS batch processed together, as Lambda would. */
const invoke = async (messages: readonly FanoutMessage[]) => {
  const event: SQSEvent = { Records: messages.map(record) };
  const answer = await handler(event);
  if (answer.batchItemFailures.length > 0) throw new Error(`${answer.batchItemFailures.length} failed`);
};
const clusterOf = (m: FanoutMessage) => (m.type === 'cluster' ? m.cluster : '');

// BENCH_FANOUT_PROFILE=<file.cpuprofile>: a CPU profile of the measured runs' fan-out only (plan and work
// items; not start-up, the warm-up, or the controller's ticks in between).
// BENCH_FANOUT_HEAP=<file>: a sampling heap profile of the same span instead (what allocates, by call site;
// `<file>.<n>.heapprofile` opens in Chrome's DevTools).
const profileTo = process.env.BENCH_FANOUT_PROFILE;
const heapTo = process.env.BENCH_FANOUT_HEAP;
const inspector = profileTo === undefined && heapTo === undefined ? undefined : new Session();
if (inspector !== undefined) {
  inspector.connect();
  if (heapTo === undefined) {
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.setSamplingInterval', { interval: 200 });
  } else await inspector.post('HeapProfiler.enable');
}
let profiling = false;
const profile = async (on: boolean) => {
  if (inspector === undefined || on === profiling) return;
  profiling = on;
  if (heapTo !== undefined) {
    // Objects collected since count too: the garbage collector's work is what is looked for.
    if (on)
      await inspector.post('HeapProfiler.startSampling', {
        samplingInterval: 16_384,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    else {
      const { profile: taken } = await inspector.post('HeapProfiler.stopSampling');
      writeFileSync(`${heapTo}.${sequence}.heapprofile`, JSON.stringify(taken));
    }
  } else if (on) await inspector.post('Profiler.start');
  else {
    const { profile: taken } = await inspector.post('Profiler.stop');
    const file = `${profileTo}.${sequence}.cpuprofile`;
    writeFileSync(file, JSON.stringify(taken));
  }
};

const batches = (values.batches ?? '1,5').split(',').map(Number);
try {
  // Run 0 warms up (JIT, first connections, first Git reads) with one service's push and is not reported.
  for (let run = 0; run <= Number(values.runs ?? 1); run++) {
    for (const batch of batches) {
      const commit = await world.commit((run * batches.length + batch) % 100);
      await world.command('reset');
      counter.take();
      if (run > 0) await profile(true);
      const started = Date.now();
      const cpu = process.cpuUsage();
      await invoke([pushMessage(world.repoURL, commit, run === 0 || values.unfiltered === true)]);
      const planMs = Date.now() - started;
      const planCpu = cpuMs(cpu);
      const plan = counter.take();
      const items = world.queues.push.takeAll();
      // Each batch is one invocation; a cluster's time is the plan's plus its batch's start to its last PATCH.
      const itemStart = new Map<string, number>();
      const itemsCpu = process.cpuUsage();
      world.fetches.length = 0;
      let firstAt = Date.now();
      for (let i = 0; i < items.length; i += batch) {
        const slice = items.slice(i, i + batch);
        const at = Date.now();
        if (i === 0) firstAt = at;
        for (const m of slice) itemStart.set(clusterOf(m), at);
        await invoke(slice);
      }
      const workCpu = cpuMs(itemsCpu);
      await profile(false);
      const work = counter.take();
      const patches = JSON.parse(await world.ask('patches')) as Record<
        string,
        { patch: number; lastPatchAt: number }
      >;
      const perCluster = Object.entries(patches).map(
        ([name, p]) => planMs + p.lastPatchAt - (itemStart.get(name) ?? started),
      );
      // The clusters of the commit's first invocation (the ones that fetch it in this container), and the rest.
      const firstClusters = new Set(items.slice(0, batch).map(clusterOf));
      const names = Object.keys(patches);
      const firstInvocation = perCluster.filter((_, i) => firstClusters.has(names[i] ?? ''));
      const laterInvocations = perCluster.filter((_, i) => !firstClusters.has(names[i] ?? ''));
      // The commit's Git fetch (for the preflight; in the first invocation): its wall time, and push → fetched
      // on the clusters' clock (the plan's time plus the first invocation's start to the fetch's end).
      const fetched = world.fetches.find((f) => f.sha === commit.after);
      const fetch =
        fetched === undefined ? undefined : { ms: fetched.ms, fromPush: planMs + fetched.endedAt - firstAt };
      const deferred = world.queues.push.takeAll().length;
      // The controller takes every app to the commit; the next run's push finds them behind it again.
      await world.command('tick');
      await world.command('tick');
      world.queues.track.takeAll();
      if (run === 0) continue;
      process.stdout.write(
        `${JSON.stringify({
          run,
          batch,
          items: items.length,
          deferred,
          planMs,
          planCpu,
          workCpu,
          patches: Object.values(patches).reduce((sum, p) => sum + p.patch, 0),
          perCluster,
          firstInvocation,
          laterInvocations,
          ...(fetch === undefined ? {} : { fetch }),
          plan,
          work,
        })}\n`,
      );
    }
  }
} finally {
  await world.close();
}
process.exit(0);
