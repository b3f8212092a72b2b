import type { Size, SizeResult } from './fleet-drive.js';
import { FUNCTIONS, type FunctionName } from './fleet-model.js';
import { LAMBDA_MEMORY_MB } from './fleet-process.js';
import { twiceFloor } from './floor.js';
import { failedRun, ifMissed, type Metric, percentiles } from './report.js';

const CONCURRENCY = 10; // REFRESH_CONCURRENCY's default
const PAGE = 500;
/** serverless.yml's `timeout` of each function (s). */
export const TIMEOUT_S: Record<FunctionName, number> = {
  webhook: 10,
  fanout: 120,
  track: 60,
  reconcile: 600,
  sweep: 600,
};

/** Why the fleet rows' targets are missed on this machine, where they are (measured: BENCHMARKS.md). */
const WHY = {
  ratio:
    'the bound counts only the API round trips; a work item also spends its CPU (the CPU row) on the same core between them, makes 5-9 DynamoDB requests in turn, and the first work item of a commit in a container fetches the commit for the preflight (the p99)',
  fanoutCpu:
    "the floor rows: a bare node:http PATCH plus parsing the app's share of its LIST cost 0.1-0.3 ms here before any matching, decision, preflight or record; each work item adds 5-9 DynamoDB requests at 0.3-0.45 ms of the store client's CPU each (bench/dynamo-request-cpu.ts), spread over its cluster's apps",
  trackCpu:
    "a poll makes 5-7 DynamoDB requests per cluster and rollout (0.3-0.45 ms of the store client's CPU each) and parses the cluster's LIST: spread over the poll's changes, that fixed part alone is 0.07-0.3 ms per change at 100-20 changes (the track scenario measures it in its own run)",
};

const per = (total: number, n: number) => total / Math.max(1, n);

/**
 * One fleet size's rows: each function's times and its own process's memory. `floorMs`: the least CPU a
 * refreshed app costs here, measured in this run (bench/floor.ts): fan-out's CPU target is twice it.
 */
export function sizeRows(size: Size, measured: SizeResult, floorMs: number): Metric[] {
  const { runs, memory } = measured;
  const metrics: Metric[] = [];
  const perCluster = Math.ceil(size.apps / size.clusters);
  const rtt = size.latencyMs;
  // LIST RTT (one per page) + ceil(apps per cluster / concurrency) × PATCH RTT + one queue hop (one RTT).
  const bound = Math.ceil(perCluster / PAGE) * rtt + Math.ceil(perCluster / CONCURRENCY) * rtt + rtt;
  const timeout = (fn: FunctionName) => ({ max: TIMEOUT_S[fn] * 1000 });
  const webhook = `webhook, ${size.name}`;
  metrics.push(
    ...percentiles(
      webhook,
      'signed push → answer, wall',
      runs.map((r) => r.webhook.wall),
      'ms',
      timeout('webhook'),
    ),
  );
  const at = `fanout, ${size.name}`;
  metrics.push(
    ...percentiles(
      at,
      'plan (list and match every cluster, send the work items), wall',
      runs.map((r) => r.plan.wall),
      'ms',
      timeout('fanout'),
    ),
    ...percentiles(
      at,
      'plan CPU per cluster',
      runs.map((r) => per(r.plan.cpu, size.clusters)),
      'ms',
    ),
  );
  if (rtt > 0) {
    metrics.push(
      ...ifMissed(
        percentiles(
          at,
          `push → a cluster's work item done ÷ bound (${bound} ms), per cluster (plan + its work item in its batch of 5)`,
          runs.flatMap((r) => r.fanout.perCluster.map((ms) => ms / bound)),
          '×',
          { max: 1.3 },
        ),
        WHY.ratio,
      ),
    );
  }
  metrics.push(
    ...percentiles(
      at,
      "push → a cluster's work item done (plan + its work item in its batch of 5)",
      runs.flatMap((r) => r.fanout.perCluster),
      'ms',
    ),
    ...percentiles(
      at,
      'work item time in its SQS batch of 5 (from the batch start)',
      runs.flatMap((r) => r.fanout.itemMs),
      'ms',
    ),
    ...percentiles(
      at,
      'work item time per app of its cluster',
      runs.flatMap((r) => r.fanout.itemMs.map((ms) => ms / perCluster)),
      'ms',
    ),
    ...percentiles(
      at,
      'one invocation (a batch of 5 work items), wall',
      runs.flatMap((r) => r.fanout.batchWalls),
      'ms',
      timeout('fanout'),
    ),
    ...percentiles(
      at,
      'push → last PATCH of the fleet, batches one after another in one process',
      runs.map((r) => r.fanout.toLastPatch),
      'ms',
    ),
    ...ifMissed(
      percentiles(
        at,
        'orchestrator CPU per refreshed app',
        runs.map((r) => per(r.fanout.cpu, r.fanout.patches)),
        'ms',
        { max: twiceFloor(floorMs) },
      ),
      `${WHY.fanoutCpu} (the floor measured in this run: ${floorMs.toFixed(2)} ms)`,
    ),
    {
      scenario: at,
      metric: 'apps refreshed per run',
      value: runs[0]?.fanout.patches ?? 0,
      unit: 'PATCHes',
      target: { min: size.apps },
    },
  );
  const track = `track, ${size.name}`;
  metrics.push(
    ...percentiles(
      track,
      // One LIST per cluster, of `ceil(apps / 500)` pages: the requests the servers saw ÷ that.
      'LIST requests per poll ÷ (clusters with apps in flight × pages of their listing)',
      runs.map((r) => r.track.lists / Math.max(1, r.track.chains * Math.ceil(perCluster / PAGE))),
      '×',
      { max: 1 },
    ),
    ...percentiles(
      track,
      'state changes per poll',
      runs.map((r) => r.track.changed),
      'apps',
    ),
    ...percentiles(
      track,
      'one chain poll in its SQS batch of 10 (from the batch start)',
      runs.flatMap((r) => r.track.itemMs),
      'ms',
    ),
    ...percentiles(
      track,
      'one invocation (a batch of 10 polls), wall',
      runs.flatMap((r) => r.track.batchWalls),
      'ms',
      timeout('track'),
    ),
    ...ifMissed(
      percentiles(
        track,
        'orchestrator CPU per state change',
        runs.map((r) => per(r.track.cpu, r.track.changed)),
        'ms',
        { max: 0.5 },
      ),
      WHY.trackCpu,
    ),
  );
  const reconciled = runs.flatMap((r) => (r.reconcile === undefined ? [] : [r.reconcile]));
  if (reconciled.length > 0) {
    const scenario = `reconcile, ${size.name}`;
    const result = reconciled[0]?.result as {
      clusters?: { read?: unknown[]; unread?: unknown[] };
      applications?: number;
    };
    const note = `clusters read ${result?.clusters?.read?.length ?? '?'}, unread ${result?.clusters?.unread?.length ?? '?'}, ${result?.applications ?? '?'} apps audited`;
    metrics.push(
      ...percentiles(
        scenario,
        'one pass, wall (within the Lambda timeout)',
        reconciled.map((r) => r.wall),
        'ms',
        timeout('reconcile'),
      ).map((m) => ({ ...m, note })),
      ...percentiles(
        scenario,
        'one pass, orchestrator CPU',
        reconciled.map((r) => r.cpu),
        'ms',
      ),
    );
  }
  const sweep = `sweep, ${size.name}`;
  metrics.push(
    ...percentiles(
      sweep,
      'one sweep, wall',
      runs.map((r) => r.sweep.wall),
      'ms',
      timeout('sweep'),
    ),
    ...percentiles(
      sweep,
      'one sweep, CPU per cluster',
      runs.map((r) => per(r.sweep.cpu, size.clusters)),
      'ms',
    ),
  );
  for (const fn of FUNCTIONS) {
    const m = memory[fn];
    if (m === undefined) continue;
    const scenario = `memory, ${size.name}`;
    metrics.push(
      {
        scenario,
        metric: `${fn}: peak heap used (its own process, measured runs, sampled every 10 ms)`,
        value: m.peakHeapMb,
        unit: 'MB',
        target: { max: LAMBDA_MEMORY_MB },
      },
      { scenario, metric: `${fn}: peak RSS (measured runs)`, value: m.peakRssMb, unit: 'MB' },
      { scenario, metric: `${fn}: maxRSS (with the warm-up)`, value: m.maxRssMb, unit: 'MB' },
      { scenario, metric: `${fn}: RSS idle (bundle loaded, runtime built)`, value: m.idleRssMb, unit: 'MB' },
    );
  }
  if (measured.error !== undefined) metrics.push(failedRun(`fleet, ${size.name}`, measured.error));
  return metrics;
}

/** What "flat in the fleet size" compares, per size that ran (the 5k / 20k / 100k sizes). */
export interface SizeFigures {
  readonly tag: string;
  readonly latencyMs: number;
  readonly figures: Record<string, number>;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
};

export function sizeFigures(size: Size, measured: SizeResult): SizeFigures {
  const { runs, memory } = measured;
  const perCluster = Math.ceil(size.apps / size.clusters);
  const figures: Record<string, number> = {
    'fanout work item time per app of its cluster (ms)': median(
      runs.flatMap((r) => r.fanout.itemMs.map((ms) => ms / perCluster)),
    ),
    'fanout CPU per refreshed app (ms)': median(runs.map((r) => per(r.fanout.cpu, r.fanout.patches))),
    'plan CPU per cluster (ms)': median(runs.map((r) => per(r.plan.cpu, size.clusters))),
    'sweep CPU per cluster (ms)': median(runs.map((r) => per(r.sweep.cpu, size.clusters))),
  };
  for (const fn of FUNCTIONS) {
    const m = memory[fn];
    if (m === undefined) continue;
    figures[`${fn} peak heap (MB)`] = m.peakHeapMb;
    figures[`${fn} peak RSS (MB)`] = m.peakRssMb;
  }
  return { tag: size.tag, latencyMs: size.latencyMs, figures };
}

/** Each figure at every compared size and its largest ÷ smallest: flat is within 1.5×. */
export function comparisonRows(sizes: readonly SizeFigures[]): Metric[] {
  if (sizes.length < 2) return [];
  const scenario = `fleet sizes compared (${sizes.map((s) => s.tag).join(' / ')})`;
  const names = [...new Set(sizes.flatMap((s) => Object.keys(s.figures)))];
  return names.flatMap((name) => {
    // Times compare only between sizes at the same added latency (20 ms makes a work item wait, not work).
    const timed = name.includes('time');
    const latency = sizes.at(-1)?.latencyMs;
    const over = sizes.filter((s) => s.figures[name] !== undefined && (!timed || s.latencyMs === latency));
    if (over.length < 2) return [];
    const values = over.map((s) => s.figures[name] ?? 0);
    const ratio = Math.max(...values) / Math.max(1e-9, Math.min(...values));
    const text = `${over.map((s) => s.tag).join(' / ')}: ${values.map((v) => v.toPrecision(3)).join(' / ')}`;
    return [
      {
        scenario,
        metric: `${name}, largest ÷ smallest (${text})`,
        value: ratio,
        unit: '×',
        target: { max: 1.5 },
      },
    ];
  });
}
