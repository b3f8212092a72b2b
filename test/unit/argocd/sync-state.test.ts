import { describe, expect, it } from 'vitest';
import { hasAutomatedSync, observeApplication } from '../../../lib/argocd/sync-state.js';

const SHA = 'b'.repeat(40);
const OLD = 'a'.repeat(40);

function app(status: Record<string, unknown>, syncPolicy: unknown = { automated: { prune: true } }) {
  return { metadata: { name: 'web', namespace: 'argocd' }, spec: { syncPolicy }, status };
}

const op = (phase: string, revision: string, extra: Record<string, unknown> = {}) => ({
  operationState: {
    phase,
    operation: { sync: { revision } },
    syncResult: { revision },
    startedAt: '2026-11-30T10:00:00Z',
    ...extra,
  },
});

describe('observeApplication', () => {
  it.each([
    {
      name: 'waits while Argo CD has not yet compared the pushed commit',
      status: { sync: { status: 'Synced', revision: OLD }, health: { status: 'Healthy' } },
      state: 'refreshed',
    },
    {
      name: 'is syncing while an operation runs for the commit',
      status: {
        sync: { status: 'OutOfSync', revision: SHA },
        health: { status: 'Healthy' },
        ...op('Running', SHA),
      },
      state: 'syncing',
    },
    {
      name: 'treats Running with finishedAt as a retry in progress, not an end',
      status: {
        sync: { status: 'OutOfSync', revision: SHA },
        ...op('Running', SHA, {
          finishedAt: '2026-11-30T10:01:00Z',
          message: 'one or more objects failed to apply. Retrying attempt #1',
        }),
      },
      state: 'syncing',
    },
    {
      name: 'ends synced when the commit is Synced and Healthy',
      status: {
        sync: { status: 'Synced', revision: SHA },
        health: { status: 'Healthy' },
        ...op('Succeeded', SHA, { finishedAt: '2026-11-30T10:02:00Z' }),
      },
      state: 'synced',
    },
    {
      name: 'does not take Succeeded for Healthy: waits while health is Progressing',
      status: {
        sync: { status: 'Synced', revision: SHA },
        health: { status: 'Progressing' },
        ...op('Succeeded', SHA, { finishedAt: '2026-11-30T10:02:00Z' }),
      },
      state: 'syncing',
    },
    {
      name: 'ends degraded when the commit is Synced but Degraded',
      status: {
        sync: { status: 'Synced', revision: SHA },
        health: { status: 'Degraded', message: 'crashloop' },
      },
      state: 'degraded',
    },
    {
      name: 'ends degraded when the commit is Synced but Missing',
      status: { sync: { status: 'Synced', revision: SHA }, health: { status: 'Missing' } },
      state: 'degraded',
    },
    {
      name: 'ends failed when the operation for the commit Failed',
      status: {
        sync: { status: 'OutOfSync', revision: SHA },
        ...op('Failed', SHA, {
          finishedAt: '2026-11-30T10:02:00Z',
          message: 'one or more objects failed to apply',
        }),
      },
      state: 'failed',
    },
    {
      name: 'ends failed when the operation for the commit ended in Error',
      status: {
        sync: { status: 'OutOfSync', revision: SHA },
        ...op('Error', SHA, { finishedAt: '2026-11-30T10:02:00Z' }),
      },
      state: 'failed',
    },
    {
      name: 'ignores a failed operation of an earlier commit',
      status: {
        sync: { status: 'OutOfSync', revision: SHA },
        ...op('Failed', OLD, { finishedAt: '2026-11-30T09:00:00Z' }),
      },
      state: 'syncing',
    },
    {
      name: 'waits for the automated sync of an OutOfSync app',
      status: { sync: { status: 'OutOfSync', revision: SHA }, health: { status: 'Healthy' } },
      state: 'syncing',
    },
    {
      name: 'ends synced for a multi-source app whose revisions include the commit',
      status: { sync: { status: 'Synced', revisions: [OLD, SHA] }, health: { status: 'Healthy' } },
      state: 'synced',
    },
    {
      name: 'ends synced (suspended) when health is Suspended',
      status: { sync: { status: 'Synced', revision: SHA }, health: { status: 'Suspended' } },
      state: 'synced',
    },
    {
      name: 'waits while the sync status is Unknown',
      status: {
        sync: { status: 'Unknown', revision: SHA },
        conditions: [{ type: 'ComparisonError', message: 'rpc error' }],
      },
      state: 'syncing',
    },
    { name: 'waits on an app with no status yet', status: {}, state: 'refreshed' },
  ])('$name', ({ status, state }) => {
    expect(observeApplication(app(status), SHA).state).toBe(state);
  });

  it('ends out-of-sync for an app with no automated sync policy: a person must sync', () => {
    const observed = observeApplication(app({ sync: { status: 'OutOfSync', revision: SHA } }, {}), SHA);
    expect(observed).toMatchObject({ state: 'out-of-sync', syncStatus: 'OutOfSync', revision: SHA });
  });

  it('carries the operation message and finish time of a failed sync', () => {
    const observed = observeApplication(
      app({
        sync: { status: 'OutOfSync', revision: SHA },
        ...op('Failed', SHA, { finishedAt: 'T1', message: 'boom' }),
      }),
      SHA,
    );
    expect(observed).toMatchObject({ state: 'failed', message: 'boom', finishedAt: 'T1' });
  });

  it('never throws on a malformed object', () => {
    expect(observeApplication('nonsense', SHA).state).toBe('refreshed');
    expect(observeApplication({ status: { sync: 'x', operationState: 7 } }, SHA).state).toBe('refreshed');
  });
});

describe('hasAutomatedSync', () => {
  it.each([
    { name: 'is on with an automated block', policy: { automated: {} }, on: true },
    { name: 'is off without a sync policy', policy: undefined, on: false },
    { name: 'is off when automated is disabled', policy: { automated: { enabled: false } }, on: false },
    { name: 'is off when automated is null', policy: { automated: null }, on: false },
  ])('$name', ({ policy, on }) => {
    expect(hasAutomatedSync({ spec: { syncPolicy: policy } })).toBe(on);
  });
});
