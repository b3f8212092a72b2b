import { type BuildOptions, build } from 'esbuild';
import { runSize, type Size } from './fleet-drive.js';
import { FLEET_CHILD } from './fleet-process.js';
import { comparisonRows, type SizeFigures, sizeFigures, sizeRows } from './fleet-rows.js';
import { floorMs } from './floor.js';
import { type BenchOptions, failedRun, jsonLine, type Metric } from './report.js';

export { LAMBDA_MEMORY_MB, lambdaHeapFlags } from './fleet-process.js';

/** The sizes that "flat in the fleet size" compares (issue 21). */
const COMPARED = new Set(['5k', '20k', '100k']);

/** Issue 11's sizes; `--quick` keeps their shape (one hub, many clusters) at a fraction of the apps. */
function sizes(quick: boolean, fleetSize?: string): Size[] {
  const s = (
    tag: string,
    name: string,
    clusters: number,
    apps: number,
    latencyMs: number,
    runs: number,
    reconcile = false,
  ): Size => ({ tag, name, clusters, apps, latencyMs, realistic: true, runs, reconcile });
  const all = quick
    ? [
        s('quick', '100 apps / 5 clusters', 5, 100, 20, 2),
        s('quick-hub', '300 apps / 1 hub', 1, 300, 20, 2, true),
      ]
    : [
        // One measured run (after the warm-up) for the big sizes: each takes minutes of the doubles' time.
        s('1k', '1,000 apps / 20 clusters', 20, 1000, 20, 2),
        s('5k', '5,000 apps / 50 clusters', 50, 5000, 20, 1, true),
        s('hub', '5,000 apps / 1 hub', 1, 5000, 20, 1, true),
        s('20k', '20,000 apps / 50 clusters', 50, 20000, 0, 1, true),
        // Only when asked (`--fleet-size=100k`): the doubles alone hold ~2 GB of realistic objects.
        s('100k', '100,000 apps / 200 clusters', 200, 100_000, 0, 1, true),
      ];
  if (fleetSize === undefined) return all.filter((size) => size.tag !== '100k');
  // `--fleet-size=5k,20k,100k`: each comma-separated part a tag or a part of the name (`hub`).
  const wanted = fleetSize.split(',');
  return all.filter((size) => wanted.some((w) => size.tag === w || size.name.includes(w)));
}

/**
 * Each function's child runs as one esbuild bundle built like the Lambda bundles (`custom.esbuild` in
 * serverless.yml: dependencies bundled and minified, names kept, the environment credential provider): with
 * the packages loaded from node_modules instead, V8 holds their full sources (client-node's alone is ~15 MB
 * of strings) and the idle process is ~140 MB instead of ~65 MB; under tsx also tsx's loader thread.
 */
async function buildChild(): Promise<void> {
  await build({ ...LAMBDA_LIKE_BUILD, entryPoints: ['bench/fleet-child.ts'], outfile: FLEET_CHILD });
}

/** serverless.yml's `custom.esbuild` for the benchmark's own bundles (targeting the Node that runs them). */
export const LAMBDA_LIKE_BUILD = {
  bundle: true,
  minify: true,
  keepNames: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  mainFields: ['module', 'main'],
  alias: {
    '@aws-sdk/credential-provider-node': './lib/aws/lambda-credentials.ts',
    'whatwg-url': './lib/kubernetes/whatwg-url.ts',
    yaml: './node_modules/yaml/browser/index.js',
  },
  external: ['@aws-sdk/client-ssm', '@aws-sdk/client-s3', '@smithy/core/event-streams'],
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
} satisfies BuildOptions;

/**
 * Each fleet size against one doubles process (dynalite, the simulated clusters, Git), each function
 * (webhook, fan-out's plan and work items, track, reconcile, sweep) in a child process of its own under a
 * 256 MB Lambda's heap, handed its messages as SQS would hand them: so each row is one function's own.
 */
export async function benchFleet(options: BenchOptions): Promise<Metric[]> {
  const metrics: Metric[] = [];
  const compared: SizeFigures[] = [];
  await buildChild();
  // The fan-out CPU target is twice the floor measured now on this machine, as in the fanout scenario.
  const floor = await floorMs(options.quick);
  for (const size of sizes(options.quick, options.fleetSize)) {
    process.stderr.write(`  fleet: ${size.name}...\n`);
    const started = Date.now();
    try {
      const measured = await runSize(size);
      const rows = [
        // A size that failed before its measured run has only its memory rows and the failure to show.
        ...sizeRows(size, measured, floor).filter(
          (row) =>
            measured.runs.length > 0 || row.scenario.startsWith('memory') || row.scenario.startsWith('fleet'),
        ),
        {
          scenario: `fleet, ${size.name}`,
          metric: 'the size, wall (doubles included: start, warm-up, measured runs)',
          value: (Date.now() - started) / 1000,
          unit: 's',
        },
      ];
      metrics.push(...rows);
      // Each size's rows as soon as it is done (a size takes minutes; a later one may not finish).
      for (const row of rows) process.stderr.write(`    ${jsonLine(row)}\n`);
      if (COMPARED.has(size.tag) && measured.error === undefined) compared.push(sizeFigures(size, measured));
    } catch (error) {
      // One size failing (the doubles running out of memory, say) still reports the others.
      metrics.push(failedRun(`fleet, ${size.name}`, String(error)));
    }
  }
  metrics.push(...comparisonRows(compared));
  return metrics;
}
