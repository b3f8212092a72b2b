import { cpus } from 'node:os';
import { benchColdStart } from './cold-start.js';
import { benchCost } from './cost.js';
import { benchFanout } from './fanout.js';
import { benchFleet } from './fleet.js';
import { benchFloor } from './floor.js';
import { benchGitFetch } from './git-fetch.js';
import { benchLoad } from './load.js';
import { benchMatching } from './matching.js';
import type { Row } from './measure.js';
import { benchNotify } from './notify.js';
import { benchPage } from './page.js';
import { type BenchOptions, jsonLine, type Metric, parseBenchArgs, tableRow } from './report.js';
import { benchTrack } from './track.js';
import { benchWaves } from './waves.js';
import { benchWebhook } from './webhook.js';

// `npm run bench [-- scenario...] [--json] [--quick]`: measures speed and memory goals (never asserted by
// tests) and prints a Markdown table for BENCHMARKS.md, or one JSON object per line with `--json`.
const scenarios: Record<string, (options: BenchOptions) => Promise<readonly (Row | Metric)[]>> = {
  matching: benchMatching,
  floor: benchFloor,
  webhook: benchWebhook,
  fleet: benchFleet,
  fanout: benchFanout,
  'git-fetch': benchGitFetch,
  waves: benchWaves,
  track: benchTrack,
  load: benchLoad,
  'cold-start': benchColdStart,
  page: benchPage,
  cost: benchCost,
  notify: benchNotify,
};

const { options, json, wanted } = parseBenchArgs(process.argv.slice(2));
const rows: (Row | Metric)[] = [];
for (const [name, run] of Object.entries(scenarios)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  process.stderr.write(`running ${name}${options.quick ? ' (quick)' : ''}...\n`);
  const started = performance.now();
  const result = await run(options);
  process.stderr.write(`${name}: ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  rows.push(...result);
  if (json) for (const row of result) process.stdout.write(`${jsonLine(row)}\n`);
}
if (!json) {
  process.stdout.write(`Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}\n\n`);
  process.stdout.write('| scenario | measure | result | target |\n| --- | --- | --- | --- |\n');
  for (const row of rows) process.stdout.write(`${tableRow(row)}\n`);
}
process.exit(0);
