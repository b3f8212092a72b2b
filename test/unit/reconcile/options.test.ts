import { describe, expect, it } from 'vitest';
import { DEFAULT_AUDIT_OPTIONS } from '../../../lib/audit/types.js';
import { DEFAULT_RECONCILE_OPTIONS, resolveOptions } from '../../../lib/reconcile/options.js';

describe('resolveOptions', () => {
  it('gives the documented defaults', () => {
    expect(resolveOptions()).toEqual(DEFAULT_RECONCILE_OPTIONS);
    expect(DEFAULT_RECONCILE_OPTIONS).toMatchObject({
      graceSeconds: 120,
      lsRefsConcurrency: 8,
      lastSeenRefreshSeconds: 3600,
      observationWindowMs: DEFAULT_AUDIT_OPTIONS.thrashWindowMs,
    });
  });

  it('keeps observations as long as the longest window a rule looks back over', () => {
    expect(resolveOptions({ audit: { thrashWindowMs: 3 * 3600_000 } }).observationWindowMs).toBe(
      3 * 3600_000,
    );
  });

  it('ignores settings given as undefined', () => {
    expect(resolveOptions({ graceSeconds: undefined as unknown as number }).graceSeconds).toBe(120);
  });
});
