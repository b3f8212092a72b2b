import { build } from 'esbuild';
import { childFlags, runChildLines } from './child-lines.js';
import { LAMBDA_LIKE_BUILD, LAMBDA_MEMORY_MB, lambdaHeapFlags } from './fleet.js';
import { listParsePerAppMs } from './floor.js';
import { type BenchOptions, failedRun, type Metric } from './report.js';
import { storeRequestCpuMs } from './store-request-cpu.js';

const CHILD = '.bench-build/track-child.mjs';

interface PollLine {
  readonly changes: number;
  /** What the measured poll follows: the work items (`work`) or a poll of its chain (`poll`). */
  readonly after: string;
  readonly polls: number;
  readonly cpu: number;
  readonly wall: number;
  readonly changed: number;
  readonly requests: Readonly<Record<string, number>>;
}

/** Issue 21's track targets: requests per poll of one cluster and rollout, CPU per state change. */
const BASE_REQUESTS = 3;
const CHANGES_PER_BATCH = 25;
const CPU_PER_CHANGE_MS = 0.5;

/**
 * Track polls as SQS hands them to the track function (batches of 10 clusters side by side) over one
 * rollout on every cluster, with 20 and 100 state changes per cluster per poll, in a child bundled like the
 * Lambda bundles with a 256 MB function's heap. `BENCH_TRACK_PROF=<file>` writes a CPU profile of the
 * measured polls alone (`.cpuprofile`, for Chrome DevTools).
 */
export async function benchTrack(options: BenchOptions): Promise<Metric[]> {
  const profile = process.env.BENCH_TRACK_PROF;
  // A profile reads better unminified (the same code otherwise).
  const minify = profile === undefined;
  await build({ ...LAMBDA_LIKE_BUILD, minify, entryPoints: ['bench/track-child.ts'], outfile: CHILD });
  const [clusters, apps, changes] = options.quick ? [5, 100, '5,20'] : [50, 5000, '20,100'];
  const size = `${apps.toLocaleString('en')} apps / ${clusters} clusters`;
  process.stderr.write(`  track: ${size}...\n`);
  const out = await runChildLines([
    ...lambdaHeapFlags(LAMBDA_MEMORY_MB),
    CHILD,
    ...childFlags({ clusters, apps, changes, rounds: 1, after: 'work,poll' }),
  ]);
  const lines = out.lines.map((text) => JSON.parse(text) as PollLine);
  if (out.code !== 0 || lines.length === 0) return [failedRun(`track, ${size}`, `exit ${out.code}`)];
  // The least a poll can cost here, measured now (the machine's speed drifts within the hour): the JSON of
  // the cluster's LIST, and the requests the target allows at the store client's CPU per request.
  const parsePerApp = listParsePerAppMs(options.quick);
  const perRequest = await storeRequestCpuMs(options.quick ? 300 : 2000);
  const listed = apps / clusters;
  const metrics: Metric[] = [];
  const cases = [...new Set(lines.map((l) => `${l.changes} ${l.after}`))];
  for (const [per, after] of cases.map((c) => c.split(' ') as [string, string])) {
    const runs = lines.filter((l) => l.changes === Number(per) && l.after === after);
    const sum = (f: (l: PollLine) => number) => runs.reduce((s, l) => s + f(l), 0);
    const polls = sum((l) => l.polls);
    const changed = sum((l) => l.changed);
    const requests = sum((l) => Object.values(l.requests).reduce((a, b) => a + b, 0));
    const byAction: Record<string, number> = {};
    for (const run of runs)
      for (const [action, n] of Object.entries(run.requests)) byAction[action] = (byAction[action] ?? 0) + n;
    const actions = Object.entries(byAction)
      .map(([action, n]) => `${action} ${Math.round((n / polls) * 10) / 10}`)
      .join(', ');
    // The controller syncs every refreshed app at once: this poll writes every change and ends the rollout.
    const follows = after === 'poll' ? 'after a poll of its chain' : 'after the work items';
    const scenario = `track, ${size}, ${per} changes per cluster (the poll that ends the rollout, ${follows})`;
    const batches = Math.ceil(Number(per) / CHANGES_PER_BATCH);
    const floor = (parsePerApp * listed + perRequest * (BASE_REQUESTS + batches)) / Number(per);
    const floorText = `the floor measured in this run is ${floor.toFixed(2)} ms per change: a LIST of the cluster's ${listed} realistic Applications, ${(parsePerApp * listed).toFixed(1)} ms of JSON.parse alone, and the ${BASE_REQUESTS + batches} requests the target allows at ${perRequest.toFixed(2)} ms of the store client's CPU each, over ${per} changes; above them: the LIST's HTTP and slimming, the items' (un)marshalling, the collector, the decisions`;
    metrics.push(
      {
        scenario,
        metric: `DynamoDB requests per poll of one cluster and rollout (n=${polls})`,
        value: requests / polls,
        unit: 'requests',
        target: { max: BASE_REQUESTS + batches },
        note: actions,
        whyMissed: REQUESTS_FLOOR,
      },
      {
        scenario,
        metric: 'orchestrator CPU per state change (polls in batches of 10)',
        value: sum((l) => l.cpu) / Math.max(1, changed),
        unit: 'ms',
        target: { max: CPU_PER_CHANGE_MS },
        whyMissed: floorText,
        note: `${changed} changes, ${Math.round(sum((l) => l.wall))} ms wall`,
      },
      {
        scenario,
        metric: `floor: the least CPU per state change here (the LIST's JSON.parse + ${BASE_REQUESTS + batches} requests, over ${per} changes)`,
        value: floor,
        unit: 'ms',
      },
    );
  }
  return metrics;
}

const REQUESTS_FLOOR =
  'the tracker and rollout partitions are two Queries, the batch needs the lease (and a read under it unless the chain’s previous poll held it last), plus the summary update and, on the poll that ends the rollout, the chain’s end (its registrations and lease dropped in one conditional write, docs/engine.md)';
