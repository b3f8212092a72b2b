import type { PushMessage } from '../lib/queue/messages.js';
import type { ChangedFiles } from '../lib/webhook/push-event.js';
import { mb, ms, type Row, timed } from './measure.js';
import { type BenchWorld, startBenchWorld } from './world.js';

async function fanout(world: BenchWorld, service: number, filesKnown: boolean) {
  const commit = await world.commit(service);
  const changedFiles: ChangedFiles = filesKnown
    ? { known: true, files: [commit.path] }
    : { known: false, reason: 'truncated' };
  const message: PushMessage = {
    type: 'push',
    trigger: 'webhook',
    event: {
      provider: 'github',
      deliveryId: `bench-${commit.after}`,
      repo: { fullName: 'org/gitops', webUrl: world.repoURL, urls: [world.repoURL], defaultBranch: 'main' },
      ref: 'refs/heads/main',
      refType: 'branch',
      refName: 'main',
      before: commit.before,
      after: commit.after,
      touchedDefaultBranch: true,
      created: false,
      deleted: false,
      forced: false,
      author: { name: 'Bench' },
      commitTitle: `bench ${service}`,
      changedFiles,
      receivedAt: new Date().toISOString(),
    },
  };
  const cpu = process.cpuUsage();
  // The plan, then its work items, all at once as Lambda would run them.
  const { ms: took } = await timed(async () => {
    await world.app.fanout(message);
    const items = world.queues.push.takeAll();
    await Promise.all(items.map((item) => world.app.fanout(item)));
  });
  const used = process.cpuUsage(cpu);
  return { took, cpu: (used.user + used.system) / 1000, sha: commit.after };
}

const both = (r: { took: number; cpu: number }) => `${ms(r.took)} wall, ${ms(r.cpu)} orchestrator CPU`;

/**
 * Fan-out, one track poll and reconcile passes over a 50-cluster, 5,000-Application simulated fleet: the
 * orchestrator in this process; dynalite, the simulated clusters and the Git server in another.
 */
export async function benchFanout(): Promise<Row[]> {
  const world = await startBenchWorld({ clusters: 50, applications: 5000 });
  try {
    await fanout(world, 1, true);
    const one = await fanout(world, 2, true);
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const all = await fanout(world, 3, false);
    global.gc?.();
    const heapAfter = process.memoryUsage().heapUsed;
    await world.command('tick');
    await world.command('tick');
    const cpu = process.cpuUsage();
    const poll = await timed(() =>
      Promise.all(
        world.queues.track
          .takeAll()
          .map((m) => world.app.track({ type: 'track', cluster: m.cluster, attempt: 0 })),
      ),
    );
    const pollCpu = process.cpuUsage(cpu);
    const passes: { took: number; cpu: number; report: Record<string, unknown> }[] = [];
    for (let i = 0; i < 2; i++) {
      const before = process.cpuUsage();
      const { ms: took, value: report } = await timed(() => world.app.reconcile());
      const used = process.cpuUsage(before);
      passes.push({ took, cpu: (used.user + used.system) / 1000, report });
    }
    const findings = (p: { report: Record<string, unknown> }) =>
      (p.report.findings as { written: number }).written;
    return [
      {
        scenario: 'fanout',
        measure: 'push touching one service: 50 clusters listed, 50 apps preflighted, refreshed and recorded',
        value: both(one),
      },
      {
        scenario: 'fanout',
        measure:
          'push with unknown files: 50 clusters listed, 5,000 apps preflighted, refreshed and recorded',
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
        scenario: 'reconcile',
        measure: `first pass, 50 clusters / 5,000 apps (${findings(passes[0] ?? { report: { findings: { written: 0 } } })} findings written)`,
        value: both(passes[0] ?? { took: 0, cpu: 0 }),
      },
      {
        scenario: 'reconcile',
        measure: `steady pass (${findings(passes[1] ?? { report: { findings: { written: 0 } } })} findings written)`,
        value: both(passes[1] ?? { took: 0, cpu: 0 }),
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
