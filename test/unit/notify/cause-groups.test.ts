import { describe, expect, it } from 'vitest';
import { batchByCause, causeKey } from '../../../lib/notify/cause-groups.js';
import type { AppRecord } from '../../../lib/rollouts/app-model.js';
import { appRecord } from '../../helpers/slack.js';

const blockedBy = (name: string, key: string, externalSecret = `${name}/db`): AppRecord =>
  appRecord(name, {
    state: 'blocked',
    secrets: [
      { externalSecret, field: 'spec.data[0]', key, property: 'password', outcome: 'missing-secret' },
    ],
  });
const names = (apps: readonly AppRecord[]) => apps.map((a) => a.name);

describe('batchByCause', () => {
  it('groups apps blocked by the same secret key and property, whatever their ExternalSecret is called', () => {
    const apps = [
      blockedBy('a', 'dev/db'),
      blockedBy('b', 'dev/db', 'other/name'),
      blockedBy('c', 'dev/cache'),
    ];
    const batch = batchByCause(apps, 10);
    expect(batch.groups.map((g) => names(g.apps))).toEqual([['a', 'b'], ['c']]);
    expect(batch.overflow).toEqual([]);
  });

  it('never groups apps that give no reason, and groups the same Argo CD message', () => {
    const apps = [
      appRecord('x', { state: 'failed' }),
      appRecord('y', { state: 'failed' }),
      appRecord('p', { state: 'timeout', message: 'no sync within 600 s' }),
      appRecord('q', { state: 'timeout', message: 'no sync within  600 s' }),
    ];
    expect(causeKey(apps[0] as AppRecord)).toBeUndefined();
    expect(batchByCause(apps, 10).groups.map((g) => names(g.apps))).toEqual([['x'], ['y'], ['p', 'q']]);
  });

  it('keeps to the reply cap: past it, the remaining causes share one overflow reply', () => {
    const apps = [blockedBy('a', 'k1'), blockedBy('b', 'k1'), blockedBy('c', 'k2'), blockedBy('d', 'k3')];
    const batch = batchByCause(apps, 2);
    expect(batch.groups.map((g) => names(g.apps))).toEqual([['a', 'b']]);
    expect(names(batch.overflow)).toEqual(['c', 'd']);
  });
});
