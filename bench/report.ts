import type { Row } from './measure.js';

/** How a scenario is run: `--quick` (CI) shrinks sizes and repetitions so the benchmark cannot rot. */
export interface BenchOptions {
  readonly quick: boolean;
  /** `--fleet-size=<text>`: only the fleet sizes whose name contains it (`--fleet-size=hub`). */
  readonly fleetSize?: string;
}

/** A bound a metric should stay under (`max`) or over (`min`), in the metric's unit. */
export type Target = { readonly max: number } | { readonly min: number };

/** One measured number: `--json` prints one per line, the table prints it with its target and verdict. */
export interface Metric {
  readonly scenario: string;
  readonly metric: string;
  readonly value: number;
  readonly unit: string;
  readonly target?: Target;
  /** Printed next to the row (the machine's load, a failure's error). */
  readonly note?: string;
  /** Why the target cannot be met on this machine, measured: printed next to the row only when it is missed. */
  readonly whyMissed?: string;
}

/** The row of a run (a size, a child) that failed: a target it misses, with what went wrong as its note. */
export function failedRun(scenario: string, note: string): Metric {
  return { scenario, metric: 'run', value: 0, unit: 'failed', target: { min: 1 }, note };
}

/** Gives the rows with a target the reason their target cannot be met here (shown only if it is missed). */
export function ifMissed(metrics: readonly Metric[], why: string): Metric[] {
  return metrics.map((m) => (m.target === undefined ? m : { ...m, whyMissed: why }));
}

function missedReason(metric: Metric): string | undefined {
  return metricOk(metric) === false ? metric.whyMissed : undefined;
}

export function parseBenchArgs(argv: readonly string[]): {
  options: BenchOptions;
  json: boolean;
  wanted: string[];
} {
  const args = argv.filter((a) => a !== '--');
  return {
    options: {
      quick: args.includes('--quick'),
      ...optionValue(args, '--fleet-size', (fleetSize) => ({ fleetSize })),
    },
    json: args.includes('--json'),
    wanted: args.filter((a) => !a.startsWith('--')),
  };
}

/** `--name=value` (the last one given), as `{ [key]: value }`, or nothing. */
function optionValue<T>(
  args: readonly string[],
  name: string,
  make: (value: string) => T,
): T | Record<string, never> {
  const given = args.filter((a) => a.startsWith(`${name}=`)).at(-1);
  return given === undefined ? {} : make(given.slice(name.length + 1));
}

export function isMetric(item: Row | Metric): item is Metric {
  return typeof item.value === 'number';
}

export function metricOk(metric: Metric): boolean | null {
  if (metric.target === undefined) return null;
  return 'max' in metric.target ? metric.value <= metric.target.max : metric.value >= metric.target.min;
}

function targetText(target: Target | undefined): string | null {
  if (target === undefined) return null;
  return 'max' in target ? `≤ ${target.max}` : `≥ ${target.min}`;
}

const number = (value: number) =>
  value !== 0 && Math.abs(value) < 0.01
    ? value.toPrecision(2)
    : Math.abs(value) < 10
      ? value.toFixed(2)
      : value.toFixed(0);

/** `{"scenario","metric","value","unit","target","ok"}`; old-style rows keep their text value and no unit. */
export function jsonLine(item: Row | Metric): string {
  if (!isMetric(item)) {
    return JSON.stringify({
      scenario: item.scenario,
      metric: item.measure,
      value: item.value,
      unit: null,
      target: null,
      ok: null,
    });
  }
  const { scenario, metric, value, unit, target, note } = item;
  const why = missedReason(item);
  return JSON.stringify({
    scenario,
    metric,
    value: jsonValue(value),
    unit,
    target: targetText(target),
    ok: metricOk(item),
    ...(note === undefined ? {} : { note }),
    ...(why === undefined ? {} : { why }),
  });
}

/** Three decimals, or three significant digits below 1 (a push's $0.00033 is not $0). */
function jsonValue(value: number): number {
  return Math.abs(value) >= 1 || value === 0 ? Number(value.toFixed(3)) : Number(value.toPrecision(3));
}

/** The Markdown row of BENCHMARKS.md's results table: `| scenario | measure | result | target |`. */
export function tableRow(item: Row | Metric): string {
  if (!isMetric(item)) return `| ${item.scenario} | ${item.measure} | ${item.value} | |`;
  const target = targetText(item.target);
  const verdict = metricOk(item) === null ? '' : metricOk(item) ? ' ok' : ' **missed**';
  const why = missedReason(item);
  const note = [item.note, why === undefined ? undefined : `why: ${why}`].filter((n) => n !== undefined);
  const noteText = note.length === 0 ? '' : ` (${note.join('; ')})`;
  const result = `${number(item.value)} ${item.unit}`;
  return `| ${item.scenario} | ${item.metric} | ${result} | ${target === null ? '' : `${target} ${item.unit}${verdict}`}${noteText} |`;
}

/** The median of a sample (the upper one of an even count); 0 for none. */
export function median(samples: readonly number[]): number {
  return [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? 0;
}

/** Median and p99 of a sample, as two metrics with the same name stem. */
export function percentiles(
  scenario: string,
  metric: string,
  samples: readonly number[],
  unit: string,
  p99Target?: Target,
): Metric[] {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
  return [
    { scenario, metric: `${metric}, median`, value: at(0.5), unit },
    {
      scenario,
      metric: `${metric}, p99 (n=${sorted.length})`,
      value: at(0.99),
      unit,
      ...(p99Target ? { target: p99Target } : {}),
    },
  ];
}
