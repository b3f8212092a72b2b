import { build } from 'esbuild';
import { childFlags, runChildLines } from './child-lines.js';
import { LAMBDA_LIKE_BUILD, LAMBDA_MEMORY_MB, lambdaHeapFlags } from './fleet.js';
import { floorMs, partsCost, partsFloorMs, twiceFloor } from './floor.js';
import { type BenchOptions, ifMissed, type Metric, median, percentiles } from './report.js';

const CHILD = '.bench-build/fanout-child.mjs';
/** serverless.yml's fanout `batchSize`: one invocation gets up to this many work items, handled together. */
const SQS_BATCH = 5;
const CONCURRENCY = 10; // REFRESH_CONCURRENCY's default
const PAGE = 500;

interface RunLine {
  readonly batch: number;
  readonly items: number;
  readonly deferred: number;
  readonly planMs: number;
  readonly planCpu: number;
  readonly workCpu: number;
  readonly patches: number;
  readonly perCluster: readonly number[];
  /** The clusters of the commit's first invocation (the one that fetches it in the container). */
  readonly firstInvocation: readonly number[];
  readonly laterInvocations: readonly number[];
  /** The commit's Git fetch for the preflight: its wall time, and push → its end (ms, the clusters' clock). */
  readonly fetch?: { readonly ms: number; readonly fromPush: number };
  readonly plan: Readonly<Record<string, number>>;
  readonly work: Readonly<Record<string, number>>;
}

interface Size {
  readonly name: string;
  readonly clusters: number;
  readonly apps: number;
  readonly runs: number;
  /**
   * Apps without `manifest-generate-paths`, each push naming its one changed file: every app is refreshed
   * still, and the preflight answers the directories the push left alone without waiting for its fetch.
   */
  readonly unfiltered?: boolean;
}

function sizes(quick: boolean): Size[] {
  return quick
    ? [{ name: '100 apps / 5 clusters', clusters: 5, apps: 100, runs: 1 }]
    : [
        // The JIT warms over a container's first invocations (CPU per app falls ~2 × from the first measured
        // run to the fourth): four runs, so the median is a warm container's, as most invocations are.
        { name: '1,000 apps / 20 clusters', clusters: 20, apps: 1000, runs: 4 },
        { name: '5,000 apps / 50 clusters', clusters: 50, apps: 5000, runs: 2 },
        {
          name: '1,000 apps / 20 clusters, not path-filtered, pushes naming their file',
          clusters: 20,
          apps: 1000,
          runs: 4,
          unfiltered: true,
        },
      ];
}

const WHY = {
  cpu: "measured (BENCHMARKS.md, fan-out): the floor is one PATCH and one LIST share, but a work item is a LIST, a preflight, 5-9 DynamoDB requests at ~0.45 ms of SDK CPU each (an UpdateItem; a batch of 25 more) and a record per app, and once per commit and container the commit's Git fetch and tree reads; in the profile no hot spot is left in the orchestrator's code (its own files ~30 % of the busy time), the rest is spread thin over Node's sockets and HTTP client, the SDK, the collector and promise resumptions",
  requests:
    "4 per work item besides the batches (the batches carry the records, the decisions chunk and the lease's release, so the apps add one batch more when they fill whole ones): the cluster lease's take, release control's state, the chain claim (which registers the rollout on the cluster) and the summary's view-and-status write; each guards a different item (the lease, the summary, the chain) under at-least-once delivery, and DynamoDB has no conditional write across items short of a transaction (twice the write units, and not in dynalite); a retry or a second delivery also reads the records and decisions",
  ratio:
    "the bound counts only API round trips: the work item's own CPU (in a batch of 5, five work items' on one core) runs between them, and the first batch of a commit waits for its Git fetch before its first PATCH (the p99: the rows of the commit's first invocation and of the later ones, and that invocation's floor, below)",
};

/** The target on the median row too (percentiles() puts it on the p99 row only). */
const bothRows = (rows: Metric[]): Metric[] => {
  const target = rows[1]?.target;
  return target === undefined ? rows : rows.map((m) => ({ ...m, target }));
};

/**
 * Fan-out as SQS hands it to Lambda: the fan-out handler (Powertools Batch, records in parallel) with
 * batches of 5 work items beside one at a time, 20 ms per simulated API call, realistic Applications, in a
 * child bundled like the Lambda bundles with a 256 MB function's heap.
 */
export async function benchFanout(options: BenchOptions): Promise<Metric[]> {
  await build({ ...LAMBDA_LIKE_BUILD, entryPoints: ['bench/fanout-child.ts'], outfile: CHILD });
  // The floor under the CPU target, measured in this run on this machine (bench/floor.ts).
  const floor = await floorMs(options.quick);
  const metrics: Metric[] = [
    {
      scenario: 'fanout',
      metric:
        "floor: a bare node:http PATCH and JSON.parse of the app's share of the LIST, CPU per app (measured in this run; the CPU target is twice it)",
      value: floor,
      unit: 'ms',
    },
  ];
  // Beside it, what the libraries fan-out must use cost (the cluster client, the store client), measured now.
  const cost = await partsCost(options.quick);
  const part = (metric: string, value: number): Metric => ({
    scenario: 'fanout',
    metric: `part: ${metric}, client CPU (measured in this run)`,
    value,
    unit: 'ms',
  });
  metrics.push(
    part("a refresh PATCH through the orchestrator's cluster client (client-node)", cost.clientPatch),
    part("an UpdateItem through the store's client (the AWS SDK)", cost.request),
    part('a BatchWriteItem of 25 app items through it', cost.batch),
  );
  for (const size of sizes(options.quick)) {
    process.stderr.write(`  fanout: ${size.name}...\n`);
    const runs = await runSize(size);
    const perCluster = Math.ceil(size.apps / size.clusters);
    const rtt = 20;
    const bound = Math.ceil(perCluster / PAGE) * rtt + Math.ceil(perCluster / CONCURRENCY) * rtt + rtt;
    const batchesPerItem = Math.ceil(perCluster / 25);
    const parts = partsFloorMs(cost, perCluster);
    metrics.push({
      scenario: `fanout, ${size.name}`,
      metric: `floor with the parts fan-out must use: the cluster client's PATCH, the LIST share, and a work item's 4 requests and ${batchesPerItem} batch${batchesPerItem === 1 ? '' : 'es'} over its ${perCluster} apps, CPU per app`,
      value: parts,
      unit: 'ms',
    });
    for (const batch of [1, SQS_BATCH]) {
      const mine = runs.filter((r) => r.batch === batch);
      const at = `fanout, ${size.name}, ${batch === 1 ? 'one work item per invocation' : `SQS batches of ${batch}`}`;
      const total = (byAction: Readonly<Record<string, number>>) =>
        Object.values(byAction).reduce((a, b) => a + b, 0);
      metrics.push(
        ...ifMissed(
          bothRows(
            percentiles(
              at,
              'orchestrator CPU per refreshed app (plan and work items)',
              mine.map((r) => (r.planCpu + r.workCpu) / Math.max(1, r.patches)),
              'ms',
              { max: twiceFloor(floor) },
            ),
          ),
          `${WHY.cpu}; the parts fan-out must use cost ${parts.toFixed(2)} ms per app here (the row above), so ${ratioText(mine, parts)} of the CPU is above them`,
        ),
        ...ifMissed(
          bothRows(
            percentiles(
              at,
              'DynamoDB requests per work item',
              mine.map((r) => total(r.work) / Math.max(1, r.items)),
              'requests',
              { max: 4 + batchesPerItem },
            ),
          ),
          WHY.requests,
        ),
        ...ifMissed(
          percentiles(
            at,
            `push → a cluster's last PATCH ÷ bound (${bound} ms), per cluster`,
            mine.flatMap((r) => r.perCluster.map((ms) => ms / bound)),
            '×',
            { max: 2 },
          ).map((m, i) => (i === 0 ? { ...m, target: { max: 1.3 } } : m)),
          WHY.ratio,
        ),
        {
          scenario: at,
          metric: 'apps refreshed per run',
          value: Math.min(...mine.map((r) => r.patches)),
          unit: 'PATCHes',
          target: { min: size.apps },
        },
        {
          scenario: at,
          metric: 'work items deferred (cluster busy)',
          value: Math.max(...mine.map((r) => r.deferred)),
          unit: 'items',
        },
      );
      // Where the p99 comes from: the commit's first invocation in the container fetches it for the preflight.
      const split = [
        [
          "the clusters of the commit's first invocation (it fetches the commit)",
          mine.flatMap((r) => r.firstInvocation),
        ],
        ['the clusters of the later invocations', mine.flatMap((r) => r.laterInvocations)],
      ] as const;
      for (const [which, samples] of split) {
        const [middle] = percentiles(
          at,
          `push → a cluster's last PATCH ÷ bound, ${which}`,
          samples.map((ms) => ms / bound),
          '×',
        );
        if (samples.length > 0 && middle !== undefined) metrics.push(middle);
      }
      // The first invocation's floor: its apps' preflight reads the pushed commit, so their PATCHes follow
      // the commit's fetch (push → fetched), and take their rounds after it. Not where the push names its
      // files and the apps' directories are left alone (`unfiltered`): those read the commit before.
      const fetches = mine.flatMap((r) => (r.fetch === undefined ? [] : [r.fetch]));
      const patchRounds = Math.ceil(perCluster / CONCURRENCY) * rtt;
      if (fetches.length > 0)
        metrics.push({
          scenario: at,
          metric: "push → the commit fetched ÷ bound, in the commit's first invocation",
          value: median(fetches.map((f) => f.fromPush / bound)),
          unit: '×',
          note: `the fetch alone ${Math.round(median(fetches.map((f) => f.ms)))} ms (median of ${fetches.length} runs)`,
        });
      if (fetches.length > 0 && size.unfiltered !== true)
        metrics.push({
          scenario: at,
          metric: `floor of the commit's first invocation: push → fetched, then its ${patchRounds / rtt} PATCH rounds (${patchRounds} ms) ÷ bound`,
          value: median(fetches.map((f) => (f.fromPush + patchRounds) / bound)),
          unit: '×',
          note: "the preflight reads the pushed commit before an app's PATCH: the p99 (the first invocation's clusters) cannot be under this; the fetch here is a local git http-backend on the cores the benchmark uses, in AWS the Git host's round trips",
        });
      const last = mine.at(-1);
      if (last !== undefined) {
        const per = Object.entries(last.work)
          .map(([action, n]) => `${action} ${Math.round((n / Math.max(1, last.items)) * 10) / 10}`)
          .join(', ');
        metrics.push({
          scenario: at,
          metric: 'DynamoDB requests per work item, by action (last run)',
          value: total(last.work) / Math.max(1, last.items),
          unit: 'requests',
          note: per,
        });
      }
    }
  }
  return metrics;
}

/** The share of the runs' median CPU per app above the parts floor, as a percentage text. */
function ratioText(runs: readonly RunLine[], parts: number): string {
  const perApp = median(runs.map((r) => (r.planCpu + r.workCpu) / Math.max(1, r.patches)));
  return perApp <= 0 ? 'none' : `${Math.max(0, Math.round((1 - parts / perApp) * 100))} %`;
}

async function runSize(size: Size): Promise<RunLine[]> {
  const { lines, code } = await runChildLines([
    '--expose-gc',
    ...lambdaHeapFlags(LAMBDA_MEMORY_MB),
    CHILD,
    ...childFlags({
      clusters: size.clusters,
      apps: size.apps,
      latency: 20,
      runs: size.runs,
      batches: `1,${SQS_BATCH}`,
    }),
    ...(size.unfiltered === true ? ['--unfiltered'] : []),
  ]);
  if (code !== 0) throw new Error(`bench/fanout-child.ts exited with ${code} for ${size.name}`);
  return lines.map((line) => JSON.parse(line) as RunLine);
}
