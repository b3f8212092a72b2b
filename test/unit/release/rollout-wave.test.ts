import { describe, expect, it } from 'vitest';
import { rolloutWaveOf } from '../../../lib/release/holds.js';
import type { WaveProgress } from '../../../lib/rollouts/rollout-model.js';

const waves: WaveProgress[] = [
  { name: 'canary', state: 'done', clusters: ['spoke-c'] },
  { name: 'rest', state: 'waiting', clusters: ['spoke-a', 'spoke-b'] },
];

describe('rolloutWaveOf: an app’s wave in the rollout’s own waves', () => {
  it('is the wave whose clusters name the destination', () => {
    expect(rolloutWaveOf(waves, 'spoke-c')).toBe('canary');
    expect(rolloutWaveOf(waves, 'spoke-b')).toBe('rest');
  });

  it('puts a cluster no wave names (added to the fleet since) in the last wave, as the plan does', () => {
    expect(rolloutWaveOf(waves, 'spoke-new')).toBe('rest');
  });

  it('is none for a rollout planned without waves, whatever the fleet says now', () => {
    expect(rolloutWaveOf(undefined, 'spoke-a')).toBeUndefined();
    expect(rolloutWaveOf([], 'spoke-a')).toBeUndefined();
  });
});
