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
