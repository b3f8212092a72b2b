import { parseArgs } from 'node:util';
import { pushMessage } from './push-message.js';
import { startBenchWorld } from './world.js';

// One fleet size in a process of its own (`bench/fleet.ts` bundles and starts it), so its peak RSS
// (`process.resourceUsage().maxRSS`) is the orchestrator's alone: the doubles run in a grandchild.
// Prints one JSON line of samples per run, then one with the peak RSS.
const { values } = parseArgs({
  options: {
    clusters: { type: 'string' },
    apps: { type: 'string' },
    latency: { type: 'string' },
    realistic: { type: 'boolean' },
    runs: { type: 'string' },
    reconcile: { type: 'boolean' },
  },
});
const clusters = Number(values.clusters);
const apps = Number(values.apps);
const world = await startBenchWorld({
  clusters,
  applications: apps,
  latencyMs: Number(values.latency ?? 0),
  realistic: values.realistic === true,
});
// The idle process (runtime loaded, doubles up) before any work: the floor under the peak.
global.gc?.();
const idleRssMb = process.memoryUsage().rss / 1024 / 1024;
// The peak so far is start-up's (the bundle and the SDKs loading), not the orchestrator's work.
const startupPeakMb = process.resourceUsage().maxRSS / 1024;
let sampledPeak = 0;
// The peak of each phase of the measured runs (fan-out, track, reconcile), sampled every 10 ms.
const phasePeak: Record<string, number> = {};
let phase: string | undefined;
const enter = (name: string | undefined) => {
  phase = name;
};
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
const out = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
// serverless.yml's track `batchSize`: one invocation polls at most this many clusters, side by side.
const TRACK_BATCH_SIZE = 10;
/** The track chains' messages as SQS hands them to track: a batch per invocation, one after another. */
const pollInBatches = async (chains: readonly { cluster: string }[]) => {
  for (let i = 0; i < chains.length; i += TRACK_BATCH_SIZE) {
    await Promise.all(
      chains
        .slice(i, i + TRACK_BATCH_SIZE)
        .map((m) => world.app.track({ type: 'track', cluster: m.cluster, attempt: 0 })),
    );
  }
};
try {
  // Run 0 warms up (JIT, first Git reads, connections, as a warm Lambda has) and is not reported. It pushes
  // one service's file: every cluster is listed and matched, and that service's apps are preflighted,
  // refreshed, tracked and reconciled, so every path runs once, without the doubles syncing the whole fleet
  // twice (most of a big size's time) or a warm-up's syncs still running into the measured run.
  for (let run = 0; run <= Number(values.runs ?? 1); run++) {
    // Measured runs push unknown files (every app refreshes): the plan, then each work item.
    const commit = await world.commit(run % 100);
    await world.command('reset');
    enter('fanout');
    const started = Date.now();
    const cpu = process.cpuUsage();
    await world.app.fanout(pushMessage(world.repoURL, commit, run === 0));
    const planMs = Date.now() - started;
    // Each work item alone, as its own Lambda invocation would run it (its own CPU): from its start to the
    // last PATCH it caused. The per-cluster latency is the plan's time plus that.
    const perCluster: number[] = [];
    for (const item of world.queues.push.takeAll()) {
      const itemStart = Date.now();
      await world.app.fanout(item);
      const { lastPatchAt } = await world.stats();
      if (lastPatchAt >= itemStart) perCluster.push(planMs + (lastPatchAt - itemStart));
    }
    const fanoutCpu = cpuMs(cpu);
    const fanoutWall = Date.now() - started;
    const fanoutStats = await world.stats();
    // The controller syncs every app; one track poll then sees every app change state.
    await world.command('tick');
    await world.command('tick');
    await world.command('reset');
    world.polled.length = 0;
    enter('track');
    const pollCpuStart = process.cpuUsage();
    const pollStart = Date.now();
    const chains = world.queues.track.takeAll();
    await pollInBatches(chains);
    const pollWall = Date.now() - pollStart;
    const pollCpu = cpuMs(pollCpuStart);
    const pollStats = await world.stats();
    const changed = world.polled.reduce((sum, p) => sum + Number(p.changed ?? 0), 0);
    // Later polls until nothing is in flight, so the next run starts from a quiet fleet.
    for (let i = 0; i < 5 && world.queues.track.depth > 0; i++) {
      await world.command('tick');
      await pollInBatches(world.queues.track.takeAll());
    }
    let reconcile: { wall: number; cpu: number } | undefined;
    if (values.reconcile === true) {
      enter('reconcile');
      const before = process.cpuUsage();
      const start = Date.now();
      await world.app.reconcile();
      reconcile = { wall: Date.now() - start, cpu: cpuMs(before) };
    }
    if (run === 0) {
      // From here on, sample RSS: maxRSS also holds the warm-up's one-time peak (first Git reads, first
      // connections, JIT), which a warm Lambda has behind it.
      const sampler = setInterval(() => {
        const rss = process.memoryUsage.rss();
        sampledPeak = Math.max(sampledPeak, rss);
        if (phase !== undefined) phasePeak[phase] = Math.max(phasePeak[phase] ?? 0, rss / 1024 / 1024);
      }, 10);
      sampler.unref();
      continue;
    }
    out({
      run,
      fanout: {
        wall: fanoutWall,
        toLastPatch: fanoutStats.lastPatchAt - started,
        perCluster,
        cpu: fanoutCpu,
        patches: fanoutStats.patch,
        lists: fanoutStats.list,
      },
      track: { wall: pollWall, cpu: pollCpu, lists: pollStats.list, chains: chains.length, changed },
      ...(reconcile === undefined ? {} : { reconcile }),
    });
  }
  const { heapTotal, external, arrayBuffers } = process.memoryUsage();
  out({
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    warmPeakMb: Math.max(sampledPeak, process.memoryUsage.rss()) / 1024 / 1024,
    phasePeak,
    idleRssMb,
    startupPeakMb,
    heapTotal,
    external,
    arrayBuffers,
  });
} finally {
  await world.close();
}
process.exit(0);
