import { describe, expect, it } from 'vitest';
import { withProblemIndex } from '../../../lib/store/problem-apps.js';

const sha = 'a'.repeat(40);
const app = { cluster: 'prod', kind: 'Application', namespace: 'argocd', name: 'web', sha, version: 3 };

describe('withProblemIndex', () => {
  it('indexes a problem state and a warned verdict, leaving the item it was given as it was', () => {
    const given = {
      ...app,
      state: 'failed',
      preflight: { verdict: 'warn', reasons: ['manifests not rendered'] },
    };
    const before = structuredClone(given);
    const item = withProblemIndex(given);
    expect(item).toMatchObject({
      ...before,
      gsi2pk: `PROBLEMS#${sha}`,
      gsi2sk: expect.stringMatching(/^\d\d#APP#prod#/),
      gsi3pk: `WARNED#${sha}`,
      gsi3sk: expect.stringMatching(/^APP#prod#/),
    });
    expect(given).toEqual(before);
  });

  it('drops stale index attributes once the state and verdict no longer call for them, and nothing else', () => {
    const stale = {
      ...app,
      state: 'synced',
      gsi2pk: `PROBLEMS#${sha}`,
      gsi2sk: '00#x',
      gsi3pk: `WARNED#${sha}`,
      gsi3sk: 'x',
    };
    const item = withProblemIndex(stale);
    expect(item).toEqual({ ...app, state: 'synced' });
    // Absent, not undefined (toEqual alone would let an undefined attribute pass).
    expect(Object.keys(item).filter((k) => k.startsWith('gsi'))).toEqual([]);
  });
});
