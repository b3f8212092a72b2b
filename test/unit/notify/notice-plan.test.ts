import { describe, expect, it } from 'vitest';
import {
  appKey,
  batchFailures,
  contentHash,
  isRolloutEnded,
  pendingFailures,
  rolloutProgress,
} from '../../../lib/notify/notice-plan.js';
import type { AppState, RolloutStatus } from '../../../lib/rollouts/state-model.js';
import { appRecord, manyApps, rolloutSnapshot } from '../../helpers/slack.js';

describe('isRolloutEnded', () => {
  it.each<[string, RolloutStatus, AppState[], boolean]>([
    ['a succeeded rollout with every app synced has ended', 'succeeded', ['synced'], true],
    ['a partial rollout with every app final has ended', 'partial', ['synced', 'failed'], true],
    ['a blocked rollout has ended', 'blocked', ['blocked'], true],
    ['a failed rollout has ended', 'failed', ['timeout', 'error'], true],
    ['an in-progress rollout has not ended', 'in-progress', ['synced', 'syncing'], false],
    ['a pending rollout has not ended', 'pending', ['matched'], false],
    ['a final status with an app still syncing has not ended', 'partial', ['synced', 'syncing'], false],
  ])('%s', (_name, status, states, ended) => {
    const apps = states.map((state, i) => appRecord(`a${i}`, { state }));
    expect(isRolloutEnded(rolloutSnapshot(apps, { status }))).toBe(ended);
  });
});

describe('pendingFailures', () => {
  it('returns failed and blocked apps not replied to yet, failures first', () => {
    const apps = [
      appRecord('ok', { state: 'synced' }),
      appRecord('moving', { state: 'syncing' }),
      appRecord('held', { state: 'blocked' }),
      appRecord('broken', { state: 'failed' }),
      appRecord('done-before', { state: 'degraded' }),
      appRecord('late', { state: 'timeout' }),
      appRecord('boom', { state: 'error' }),
    ];
    const pending = pendingFailures(rolloutSnapshot(apps), ['hub-eu/argocd/done-before']);
    expect(pending.map((a) => a.name)).toEqual(['broken', 'boom', 'late', 'held']);
  });

  it('does not count an out-of-sync app as a failure (a person must sync it)', () => {
    expect(pendingFailures(rolloutSnapshot([appRecord('manual', { state: 'out-of-sync' })]), [])).toEqual([]);
  });
});

describe('appKey', () => {
  it.each([
    ['an Application is cluster/namespace/name', appRecord('web'), 'hub-eu/argocd/web'],
    [
      'another kind is named in the key',
      appRecord('set', { kind: 'ApplicationSet' }),
      'hub-eu/ApplicationSet:argocd/set',
    ],
  ])('%s', (_name, app, key) => {
    expect(appKey(app)).toBe(key);
  });
});

describe('batchFailures', () => {
  it('gives every app its own notice within the cap', () => {
    const batch = batchFailures(manyApps(3), 3);
    expect([batch.single.length, batch.overflow.length]).toEqual([3, 0]);
  });

  it('puts the apps beyond the cap into one overflow notice, keeping the total at the cap', () => {
    const batch = batchFailures(manyApps(25), 10);
    expect([batch.single.length, batch.overflow.length]).toEqual([9, 16]);
  });
});

describe('rolloutProgress', () => {
  it('grows as apps move forward, so an older snapshot reads as older', () => {
    const before = rolloutSnapshot([
      appRecord('a', { state: 'refreshed' }),
      appRecord('b', { state: 'syncing' }),
    ]);
    const after = rolloutSnapshot([
      appRecord('a', { state: 'syncing' }),
      appRecord('b', { state: 'failed' }),
    ]);
    expect(rolloutProgress(after)).toBeGreaterThan(rolloutProgress(before));
  });
});

describe('contentHash', () => {
  it('changes with the content and not otherwise', () => {
    const a = { text: 'x', blocks: [] };
    expect(contentHash(a)).toBe(contentHash({ text: 'x', blocks: [] }));
    expect(contentHash(a)).not.toBe(contentHash({ text: 'y', blocks: [] }));
  });
});
