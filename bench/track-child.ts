import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { TrackMessage } from '../lib/queue/messages.js';
import { pushMessage } from './push-message.js';
import { startBenchWorld } from './world.js';

// Track polls in a process of their own (`bench/track.ts` bundles and starts it). Per round: a push that
// refreshes `changes` apps on every cluster (a file of that many services; `all`: unknown files, every app),
// its work items, two controller ticks (every refreshed app syncs), then every track chain in SQS's batches
// of 10 side by side. With `--after poll` (of `work,poll`), a poll of each chain runs between the ticks (not
// measured, its syncs under way), so the measured poll is a chain's next one, as most polls are. Prints one
// JSON line per measured round: the polls' CPU, DynamoDB requests (by action) and the state changes track
// wrote. Round 0 warms up and is not printed.
const { values } = parseArgs({
  options: {
    clusters: { type: 'string' },
    apps: { type: 'string' },
    changes: { type: 'string' },
    rounds: { type: 'string' },
    after: { type: 'string' },
  },
});
const clusters = Number(values.clusters);
const apps = Number(values.apps);
const perCluster = apps / clusters;
const changeSizes = String(values.changes ?? '20,100')
  .split(',')
  .map(Number);
const rounds = Number(values.rounds ?? 1);
const afterModes = String(values.after ?? 'work').split(',');

const requests = new Map<string, number>();
const send = DynamoDBClient.prototype.send;
DynamoDBClient.prototype.send = function (this: DynamoDBClient, ...args: Parameters<typeof send>) {
  const action = args[0].constructor.name.replace(/Command$/, '');
  requests.set(action, (requests.get(action) ?? 0) + 1);
  return send.apply(this, args);
} as typeof send;
const takeRequests = () => {
  const taken = Object.fromEntries([...requests].sort());
  requests.clear();
  return taken;
};

// A synced app stays Progressing this long: a poll between the two ticks sees every sync done and unhealthy.
const HEALTH_MS = 300;
const world = await startBenchWorld({
  clusters,
  applications: apps,
  latencyMs: 0,
  realistic: true,
  healthMs: HEALTH_MS,
});
const TRACK_BATCH_SIZE = 10;
interface Profile {
  nodes: { id: number }[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}
// The measured polls' profiles as one (node ids offset so they stay apart).
let merged: Profile | undefined;
const keep = ({ profile }: { profile: Profile }) => {
  if (merged === undefined) {
    merged = profile;
    return;
  }
  const offset = Math.max(...merged.nodes.map((n) => n.id));
  const shift = (id: number) => id + offset;
  for (const node of profile.nodes as { id: number; children?: number[] }[]) {
    merged.nodes.push({ ...node, id: shift(node.id), children: (node.children ?? []).map(shift) } as never);
  }
  merged.samples.push(...profile.samples.map(shift));
  merged.timeDeltas.push(...profile.timeDeltas);
  merged.endTime += profile.endTime - profile.startTime;
};
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
const pollInBatches = async (chains: readonly TrackMessage[]) => {
  for (let i = 0; i < chains.length; i += TRACK_BATCH_SIZE) {
    await Promise.all(chains.slice(i, i + TRACK_BATCH_SIZE).map((m) => world.app.track(m)));
  }
};

// BENCH_TRACK_PROF=<file>: a CPU profile of the measured polls only (not the pushes, work items or ticks).
const profileTo = process.env.BENCH_TRACK_PROF;
const session = profileTo === undefined ? undefined : new Session();
session?.connect();
await session?.post('Profiler.enable');

try {
  let service = 0;
  for (let round = 0; round <= rounds; round++) {
    for (const [changes, after] of (round === 0 ? [1] : changeSizes).flatMap((c) =>
      afterModes.map((a) => [c, a] as const),
    )) {
      const commit = await world.commit(service++ % 100);
      const push = pushMessage(world.repoURL, commit, changes < perCluster);
      const count = Math.min(changes, perCluster);
      // The first `count` services' files: each service has one app on every cluster.
      const files = Array.from({ length: count }, (_, i) => `apps/svc-${i}/deployment.yaml`);
      if (changes < perCluster) {
        Object.assign(push.event, { changedFiles: { known: true, files } });
      }
      await world.app.fanout(push);
      for (const item of world.queues.push.takeAll()) await world.app.fanout(item);
      await world.command('tick');
      // A poll of every chain while the apps are Progressing: the measured poll is then each chain's next.
      if (after === 'poll') await pollInBatches(world.queues.track.takeAll());
      await new Promise((resolve) => setTimeout(resolve, HEALTH_MS));
      await world.command('tick');
      world.polled.length = 0;
      takeRequests();
      const cpu = process.cpuUsage();
      const started = Date.now();
      const chains = world.queues.track.takeAll();
      if (round > 0) await session?.post('Profiler.start');
      await pollInBatches(chains);
      if (round > 0)
        await session?.post('Profiler.stop').then((r) => keep(r as unknown as { profile: Profile }));
      const pollCpu = cpuMs(cpu);
      const wall = Date.now() - started;
      const byAction = takeRequests();
      const changed = world.polled.reduce((sum, p) => sum + Number(p.changed ?? 0), 0);
      // Later polls until nothing is in flight (not measured), so the next round starts from a quiet fleet.
      for (let i = 0; i < 5 && world.queues.track.depth > 0; i++) {
        await world.command('tick');
        await pollInBatches(world.queues.track.takeAll());
      }
      if (round === 0) continue;
      process.stdout.write(
        `${JSON.stringify({ changes: count, after, polls: chains.length, cpu: pollCpu, wall, changed, requests: byAction })}\n`,
      );
    }
  }
  if (profileTo !== undefined) writeFileSync(profileTo, JSON.stringify(merged));
} finally {
  await world.close();
}
process.exit(0);
