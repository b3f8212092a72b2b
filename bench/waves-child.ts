import { parseArgs } from 'node:util';
import { pushMessage } from './push-message.js';
import { rolloutSummary, startBenchWorld } from './world.js';

// A wave rollout in a process of its own (`bench/waves.ts` bundles and starts it): one push through three
// waves (the first cluster, the next tenth of the clusters, the rest), every work item, release, gate
// message and track poll run as SQS would hand them over, until the last wave is done. Prints one JSON line.
const { values } = parseArgs({
  options: { clusters: { type: 'string' }, apps: { type: 'string' }, latency: { type: 'string' } },
});
const clusterCount = Number(values.clusters);
const world = await startBenchWorld({
  clusters: clusterCount,
  applications: Number(values.apps),
  latencyMs: Number(values.latency ?? 0),
  realistic: true,
  waves: (names) => {
    const second = Math.max(1, Math.floor(names.length / 10));
    return [
      { name: 'canary', clusters: names.slice(0, 1), soakMs: 0, maxUnhealthy: { count: 0 } },
      { name: 'early', clusters: names.slice(1, 1 + second), soakMs: 0, maxUnhealthy: { count: 0 } },
      { name: 'rest', soakMs: 0, maxUnhealthy: { percent: 100 } },
    ];
  },
});
const TRACK_BATCH_SIZE = 10;
const FANOUT_BATCH_SIZE = 5;
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
let peak = 0;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 10);
sampler.unref();
try {
  const commit = await world.commit(0);
  await world.command('reset');
  const started = Date.now();
  const cpu = process.cpuUsage();
  await world.app.fanout(pushMessage(world.repoURL, commit, false));
  let rounds = 0;
  let summary: { status?: string; waves?: { state: string }[]; counts?: Record<string, number> } = {};
  // Each round: the fanout queue's messages in SQS batches of 5 side by side, the controller's step, one
  // poll of every chain in batches of 10: as the deployed functions would, round after round.
  for (; rounds < 200; rounds++) {
    const items = world.queues.push.takeAll();
    for (let i = 0; i < items.length; i += FANOUT_BATCH_SIZE) {
      await Promise.all(items.slice(i, i + FANOUT_BATCH_SIZE).map((m) => world.app.fanout(m)));
    }
    await world.command('tick');
    const chains = world.queues.track.takeAll();
    for (let i = 0; i < chains.length; i += TRACK_BATCH_SIZE) {
      await Promise.all(
        chains.slice(i, i + TRACK_BATCH_SIZE).map((m) => world.app.track({ ...m, attempt: 0 })),
      );
    }
    summary = await rolloutSummary<typeof summary>(world.app, commit.after);
    const waves = summary.waves ?? [];
    if (waves.length > 0 && waves.every((w) => w.state === 'done' || w.state === 'halted')) break;
  }
  const counts: Record<string, number> = {};
  for (const app of (summary as { apps?: { state: string }[] }).apps ?? []) {
    counts[app.state] = (counts[app.state] ?? 0) + 1;
  }
  process.stdout.write(
    `${JSON.stringify({
      wall: Date.now() - started,
      cpu: cpuMs(cpu),
      rounds,
      waves: (summary.waves ?? []).map((w) => w.state),
      counts,
      peakRssMb: Math.max(peak, process.memoryUsage.rss()) / 1024 / 1024,
    })}\n`,
  );
} finally {
  await world.close();
}
process.exit(0);
