import { describe, expect, it } from 'vitest';
import { clusterGlobMatches } from '../../../lib/release/cluster-glob.js';

describe('cluster name globs', () => {
  it.each([
    ['prod-eu', 'prod-eu', true],
    ['prod-eu', 'prod-eu-1', false],
    ['prod-*', 'prod-eu-1', true],
    ['prod-*', 'prod-', true],
    ['prod-*', 'staging-1', false],
    ['*-eu', 'prod-eu', true],
    ['*-eu', 'prod-us', false],
    ['prod-??', 'prod-eu', true],
    ['prod-??', 'prod-e', false],
    ['*', '', true],
    ['', 'x', false],
    ['a*b*c', 'axxbyyc', true],
    ['a*b*c', 'axxbyy', false],
    ['*eu*', 'prod-eu-1', true],
    ['Prod-*', 'prod-eu', false],
  ])('%s against %s: %s', (pattern, name, expected) => {
    expect(clusterGlobMatches(pattern, name)).toBe(expected);
  });

  it('answers a pathological pattern at once (no backtracking blow-up)', () => {
    const pattern = `${'*a'.repeat(100)}b`;
    const name = 'a'.repeat(250);
    const started = performance.now();
    expect(clusterGlobMatches(pattern, name)).toBe(false);
    expect(performance.now() - started).toBeLessThan(100);
  });
});
