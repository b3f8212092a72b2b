import { cpus } from 'node:os';
import { benchColdStart } from './cold-start.js';
import { benchFanout } from './fanout.js';
import { benchMatching } from './matching.js';
import type { Row } from './measure.js';
import { benchWebhook } from './webhook.js';

// `npm run bench [-- scenario...]`: measures speed and memory goals (never asserted by tests) and prints a
// Markdown table for BENCHMARKS.md.
const scenarios: Record<string, () => Promise<Row[]>> = {
  matching: benchMatching,
  webhook: benchWebhook,
  fanout: benchFanout,
  'cold-start': benchColdStart,
};

const wanted = process.argv.slice(2).filter((a) => a !== '--');
const rows: Row[] = [];
for (const [name, run] of Object.entries(scenarios)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  process.stderr.write(`running ${name}...\n`);
  rows.push(...(await run()));
}
process.stdout.write(`Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}\n\n`);
process.stdout.write('| scenario | measure | result |\n| --- | --- | --- |\n');
for (const row of rows) process.stdout.write(`| ${row.scenario} | ${row.measure} | ${row.value} |\n`);
process.exit(0);
