import { build } from 'esbuild';
import { childFlags, runChildLines } from './child-lines.js';
import { LAMBDA_LIKE_BUILD, LAMBDA_MEMORY_MB, lambdaHeapFlags } from './fleet.js';
import { type BenchOptions, failedRun, type Metric } from './report.js';

const CHILD = '.bench-build/waves-child.mjs';

interface WavesLine {
  readonly wall: number;
  readonly cpu: number;
  readonly rounds: number;
  readonly waves: readonly string[];
  readonly counts: Readonly<Record<string, number>>;
  readonly peakRssMb: number;
}

/**
 * A wave rollout (issue 18): one push through three waves (the first cluster, the next tenth, the rest),
 * in a child bundled like the Lambda bundles with a 256 MB function's heap, every message run as SQS hands
 * it over (fan-out batches of 5 side by side, track batches of 10), until the last wave is done.
 */
export async function benchWaves(options: BenchOptions): Promise<Metric[]> {
  await build({ ...LAMBDA_LIKE_BUILD, entryPoints: ['bench/waves-child.ts'], outfile: CHILD });
  const [clusters, apps] = options.quick ? [5, 100] : [50, 5000];
  const size = `${apps.toLocaleString('en')} apps / ${clusters} clusters, 3 waves`;
  process.stderr.write(`  waves: ${size}...\n`);
  const { lines, code } = await runChildLines([
    '--expose-gc',
    ...lambdaHeapFlags(LAMBDA_MEMORY_MB),
    CHILD,
    ...childFlags({ clusters, apps, latency: 20 }),
  ]);
  const last = lines.at(-1);
  const line = last === undefined ? undefined : (JSON.parse(last) as WavesLine);
  const at = `waves, ${size}`;
  if (code !== 0 || line === undefined) return [failedRun(at, `exit ${code}`)];
  const memoryWhy =
    "this one process is all five functions (each deployed function loads only its own bundle), and it keeps fan-out's warm match index and Git pool while it tracks: see the fleet rows";
  return [
    {
      scenario: at,
      metric: 'waves done',
      value: line.waves.filter((w) => w === 'done').length,
      unit: 'of 3',
      target: { min: 3 },
    },
    {
      scenario: at,
      metric: 'apps synced at the commit',
      value: line.counts.synced ?? 0,
      unit: `of ${apps}`,
      target: { min: apps },
    },
    { scenario: at, metric: 'orchestrator CPU per app, every function', value: line.cpu / apps, unit: 'ms' },
    {
      scenario: at,
      metric: 'push → last wave done (wall)',
      value: line.wall / 1000,
      unit: 's',
      note: `${line.rounds} rounds`,
    },
    {
      scenario: at,
      metric: `peak RSS (${LAMBDA_MEMORY_MB} MB function heap)`,
      value: line.peakRssMb,
      unit: 'MB',
      target: { max: LAMBDA_MEMORY_MB },
      whyMissed: memoryWhy,
    },
  ];
}
