import { createRequire } from 'node:module';
import { childFlags, runChildLines } from './child-lines.js';
import { costOf, monthlyCost, PRICES, type Standing, type Usage } from './cost-model.js';
import type { BenchOptions, Metric } from './report.js';

interface ChildLine {
  readonly refreshedApps: number;
  readonly pollsPerChain: number;
  readonly push: Usage & { dynamoRequests: number };
  /** The push's DynamoDB write units by request and item kind (its track polls included). */
  readonly pushWriteUnitsBy: Readonly<Record<string, number>>;
  readonly reconcile: Usage;
  readonly sweep: Usage;
  readonly customMetrics: number;
  /** What the push's new items keep stored: bytes (with overhead and index copies) × days till expiry. */
  readonly storedByteDays: number;
  /** Bytes of the push's new items that never expire (none expected: every kept item has a TTL). */
  readonly storedNeverExpiringBytes: number;
  /** The push's summary item as DynamoDB sizes it, and the parts that grow with the fleet. */
  readonly summary?: { readonly bytes: number; readonly parts: Readonly<Record<string, number>> };
}

/** Fleet sizes priced (apps over clusters); 100,000 only when asked (`--fleet-size=100k`). */
const SIZES = [
  { name: '1k', clusters: 10, apps: 1000 },
  { name: '20k', clusters: 50, apps: 20_000 },
  { name: '100k', clusters: 200, apps: 100_000 },
] as const;
const PUSHES_PER_DAY = [50, 500, 5000] as const;
const MINUTES_A_MONTH = 30 * 24 * 60;
/**
 * Lambda's SQS event source keeps long-polling each queue (AWS documents five pollers to start with, each a
 * 20-second ReceiveMessage): about 15 requests a minute per queue even when nothing arrives. Two queues.
 */
const IDLE_POLLS_PER_MONTH = 2 * 5 * 3 * MINUTES_A_MONTH;

/**
 * `npm run bench -- cost`: one push (one service's directory changed, so 1 % of the fleet's apps on every
 * cluster), a reconcile pass and a sweep, counted in a child (bench/cost-child.ts) as AWS bills them, then
 * priced per push and per month at 50 / 500 / 5,000 pushes a day.
 */
export async function benchCost(options: BenchOptions): Promise<Metric[]> {
  const sizes = options.quick
    ? [{ name: 'quick', clusters: 3, apps: 300 }]
    : SIZES.filter((s) =>
        options.fleetSize === undefined ? s.name !== '100k' : s.name.includes(options.fleetSize ?? ''),
      );
  const alarms = Object.keys(
    (
      createRequire(import.meta.url)('../infra/deploy-settings.cjs') as { alarms(): { Resources: object } }
    ).alarms().Resources,
  ).length;
  const metrics: Metric[] = [];
  for (const size of sizes) {
    process.stderr.write(`  cost: ${size.apps.toLocaleString('en')} apps / ${size.clusters} clusters...\n`);
    const line = await runChild(size.clusters, size.apps);
    const label = `${size.apps.toLocaleString('en')} apps / ${size.clusters} clusters`;
    const standing: Standing = {
      reconcilePass: line.reconcile,
      reconcilePassesPerMonth: MINUTES_A_MONTH / 5,
      sweepPass: line.sweep,
      sweepPassesPerMonth: MINUTES_A_MONTH,
      idlePollRequestsPerMonth: IDLE_POLLS_PER_MONTH,
      customMetrics: line.customMetrics,
      alarms,
      storedGb: 0,
    };
    const perPush = monthlyCost(line.push, 1, standing).perPush;
    metrics.push({
      scenario: 'cost',
      metric: `${label}: one push (${line.refreshedApps} apps refreshed, ${line.pollsPerChain} polls per cluster)`,
      value: perPush.total,
      unit: 'USD',
      note: `Lambda ${usd(perPush.lambda)}, DynamoDB ${usd(perPush.dynamodb)} (${line.push.dynamoRequests} requests, ${round(line.push.dynamoReadUnits)} RRU, ${round(line.push.dynamoWriteUnits)} WRU), SQS ${usd(perPush.sqs)}, API ${usd(perPush.apiGateway)}, logs ${usd(perPush.cloudwatchLogs)}`,
    });
    const top = Object.entries(line.pushWriteUnitsBy)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4);
    metrics.push({
      scenario: 'cost',
      metric: `${label}: a push's DynamoDB write units`,
      value: round(line.push.dynamoWriteUnits),
      unit: 'WRU',
      note: `most: ${top.map(([what, units]) => `${what} ${Math.round((units / line.push.dynamoWriteUnits) * 100)} %`).join(', ')}`,
    });
    if (line.summary !== undefined) {
      const { bytes, parts } = line.summary;
      metrics.push({
        scenario: 'cost',
        metric: `${label}: the push's summary item, the size each of its updates is billed at (a unit per KB)`,
        value: bytes,
        unit: 'bytes',
        note: `of which ${Object.entries(parts)
          .sort((a, b) => b[1] - a[1])
          .map(([name, size]) => `${name} ${size} B`)
          .join(', ')}; every track poll's update pays them all`,
      });
    }
    // Where the standing cost goes: one reconcile pass and one sweep, each priced as billed.
    const passes = [
      ['reconcile pass', line.reconcile, standing.reconcilePassesPerMonth],
      ['sweep', line.sweep, standing.sweepPassesPerMonth],
    ] as const;
    for (const [what, usage, perMonth] of passes) {
      const pass = costOf(usage);
      metrics.push({
        scenario: 'cost',
        metric: `${label}: one ${what} (${perMonth.toLocaleString('en')} a month)`,
        value: pass.total,
        unit: 'USD',
        note: `a month ${usd(pass.total * perMonth)}: Lambda ${usd(pass.lambda)}, DynamoDB ${usd(pass.dynamodb)} (${round(usage.dynamoReadUnits)} RRU, ${round(usage.dynamoWriteUnits)} WRU), logs ${usd(pass.cloudwatchLogs)}`,
      });
    }
    // At a steady rate the table holds pushes a day × each push's byte-days (every item kept till its TTL).
    metrics.push({
      scenario: 'cost',
      metric: `${label}: what a push keeps stored (bytes × days till expiry, measured)`,
      value: round(line.storedByteDays / 1024 ** 2),
      unit: 'MB-days',
      note: `${usd((line.storedByteDays / 1024 ** 3) * PRICES.dynamoGbMonth)} a month of storage for each push a day; items that never expire: ${line.storedNeverExpiringBytes} bytes`,
    });
    for (const perDay of PUSHES_PER_DAY) {
      const stored = (perDay * line.storedByteDays) / 1024 ** 3;
      const month = monthlyCost(line.push, perDay, { ...standing, storedGb: stored });
      metrics.push({
        scenario: 'cost',
        metric: `${label}: a month at ${perDay.toLocaleString('en')} pushes a day`,
        value: month.total,
        unit: 'USD',
        note: `pushes ${usd(month.pushCost)}, standing ${usd(month.standingCost)} (reconcile every 5 min, sweep every minute, queue polling, ${line.customMetrics} metrics, ${alarms} alarms, storage ${round(stored)} GB ${usd(stored * PRICES.dynamoGbMonth)})`,
      });
    }
  }
  return metrics;
}

const usd = (n: number) => `$${n < 0.01 ? n.toFixed(5) : n.toFixed(2)}`;
const round = (n: number) => Math.round(n * 10) / 10;

async function runChild(clusters: number, apps: number): Promise<ChildLine> {
  const { lines, code } = await runChildLines([
    '--import',
    'tsx',
    'bench/cost-child.ts',
    ...childFlags({ clusters, apps, latency: 20 }),
  ]);
  const last = lines.filter((line) => line.startsWith('{')).at(-1) ?? '';
  if (code !== 0 || last === '') throw new Error(`the cost child exited ${code} without its line`);
  return JSON.parse(last) as ChildLine;
}
