import { describe, expect, it } from 'vitest';
import { ifMissed, jsonLine, type Metric, tableRow } from '../../../bench/report.js';

const row = (value: number): Metric => ({
  scenario: 's',
  metric: 'm',
  value,
  unit: 'ms',
  target: { max: 1 },
});

describe('bench report: the reason a target cannot be met', () => {
  it('is printed beside a missed row, in the table and in the JSON line', () => {
    const [missed] = ifMissed([row(2)], 'the floor here is 1.5 ms');
    expect(tableRow(missed as Metric)).toBe(
      '| s | m | 2.00 ms | ≤ 1 ms **missed** (why: the floor here is 1.5 ms) |',
    );
    expect(JSON.parse(jsonLine(missed as Metric))).toMatchObject({
      ok: false,
      why: 'the floor here is 1.5 ms',
    });
  });

  it('is left out where the row meets its target, and rows without a target get none', () => {
    const [met, plain] = ifMissed([row(0.5), { scenario: 's', metric: 'n', value: 3, unit: 'ms' }], 'x');
    expect(tableRow(met as Metric)).toBe('| s | m | 0.50 ms | ≤ 1 ms ok |');
    expect(JSON.parse(jsonLine(met as Metric))).not.toHaveProperty('why');
    expect(plain).not.toHaveProperty('whyMissed');
  });

  it('sits beside a note', () => {
    const [missed] = ifMissed([{ ...row(2), note: 'load average 9.0 on 2 cores' }], 'compile time');
    expect(tableRow(missed as Metric)).toContain('(load average 9.0 on 2 cores; why: compile time)');
  });
});

describe('bench report: JSON values', () => {
  it('keeps three significant digits below 1, so a push costing $0.00033 is not written as 0', () => {
    const value = (v: number) =>
      JSON.parse(jsonLine({ scenario: 's', metric: 'm', value: v, unit: 'USD' })).value;
    expect(value(0.000_334_9)).toBe(0.000335);
    expect(value(0.5)).toBe(0.5);
    expect(value(57.9583)).toBe(57.958);
    expect(value(0)).toBe(0);
  });
});
