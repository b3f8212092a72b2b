import type { PushMessage } from '../lib/queue/messages.js';
import type { ChangedFiles } from '../lib/webhook/push-event.js';
import { mb, ms, type Row, timed } from './measure.js';
import { BENCH_REPO, type BenchWorld, startBenchWorld } from './world.js';

let pushes = 0;

function push(changedFiles: ChangedFiles): PushMessage {
  pushes += 1;
  const after = `${pushes.toString(16)}`.padStart(40, 'c');
  return {
    type: 'push',
    trigger: 'webhook',
    event: {
      provider: 'github',
      deliveryId: `bench-${pushes}`,
      repo: {
        fullName: 'org/gitops',
        webUrl: BENCH_REPO,
        urls: [BENCH_REPO, `${BENCH_REPO}.git`],
        defaultBranch: 'main',
      },
      ref: 'refs/heads/main',
      refType: 'branch',
      refName: 'main',
      before: 'b'.repeat(40),
      after,
      touchedDefaultBranch: true,
      created: false,
      deleted: false,
      forced: false,
      author: { name: 'Bench' },
      commitTitle: `bench ${pushes}`,
      changedFiles,
      receivedAt: new Date().toISOString(),
    },
  };
}

async function fanout(world: BenchWorld, changedFiles: ChangedFiles) {
  const message = push(changedFiles);
  await world.command(`head ${message.event.after}`);
  const cpu = process.cpuUsage();
  const { ms: took } = await timed(() => world.app.fanout(message));
  const used = process.cpuUsage(cpu);
  return { took, cpu: (used.user + used.system) / 1000, sha: message.event.after };
}

/** Fan-out and one track poll over a 50-cluster, 5,000-Application simulated fleet (HTTP + dynalite). */
export async function benchFanout(): Promise<Row[]> {
  const world = await startBenchWorld({ clusters: 50, applications: 5000 });
  try {
    await fanout(world, { known: true, files: ['apps/svc-1/deployment.yaml'] });
    const one = await fanout(world, { known: true, files: ['apps/svc-2/deployment.yaml'] });
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const all = await fanout(world, { known: false, reason: 'truncated' });
    global.gc?.();
    const heapAfter = process.memoryUsage().heapUsed;
    await world.command('tick');
    await world.command('tick');
    const deadline = new Date(Date.now() + 600_000).toISOString();
    const cpu = process.cpuUsage();
    const poll = await timed(() => world.app.track({ type: 'track', sha: all.sha, deadline, attempt: 0 }));
    const pollCpu = process.cpuUsage(cpu);
    const both = (r: { took: number; cpu: number }) => `${ms(r.took)} wall, ${ms(r.cpu)} orchestrator CPU`;
    return [
      {
        scenario: 'fanout',
        measure: 'push touching one service: 50 clusters listed, 50 apps refreshed and recorded',
        value: both(one),
      },
      {
        scenario: 'fanout',
        measure: 'push with unknown files: 50 clusters listed, 5,000 apps refreshed and recorded',
        value: both(all),
      },
      {
        scenario: 'fanout',
        measure: 'heap retained after the 5,000-app fan-out (after GC)',
        value: mb(Math.max(0, heapAfter - heapBefore)),
      },
      {
        scenario: 'track',
        measure: 'one poll of 5,000 apps (50 LISTs, 5,000 conditional writes, summary)',
        value: both({ took: poll.ms, cpu: (pollCpu.user + pollCpu.system) / 1000 }),
      },
      {
        scenario: 'process',
        measure: 'resident memory of the orchestrator process at the end',
        value: mb(process.memoryUsage().rss),
      },
    ];
  } finally {
    await world.close();
  }
}
