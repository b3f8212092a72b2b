import { describe, expect, it } from 'vitest';
import { phaseOf, plannedStatuses, statusRank, summaryLine } from '../../../lib/commit-status/plan.js';
import type { Rollout, WaveProgress } from '../../../lib/rollouts/rollout-model.js';
import type { AppState } from '../../../lib/rollouts/state-model.js';
import { appRecord, rolloutOf } from '../../helpers/rollout-records.js';

const app = (cluster: string, name: string, state: AppState) => appRecord(cluster, name, state);
const rollout = rolloutOf;

describe('what a commit status says', () => {
  it.each([
    { name: 'all synced', states: ['synced', 'synced'], line: '2/2 synced' },
    {
      name: 'the issue example',
      states: [...Array<AppState>(48).fill('synced'), 'blocked', 'failed'],
      line: '48/50 synced, 1 blocked, 1 failed',
    },
    {
      name: 'in progress',
      states: ['refreshed', 'syncing', 'synced'],
      line: '1/3 synced, 1 refreshed, 1 syncing',
    },
  ] as { name: string; states: AppState[]; line: string }[])('summarises $name', ({ states, line }) => {
    expect(summaryLine(states)).toBe(line);
  });

  it.each([
    { status: 'pending', phase: 'pending' },
    { status: 'in-progress', phase: 'running' },
    { status: 'succeeded', phase: 'success' },
    { status: 'partial', phase: 'failure' },
    { status: 'failed', phase: 'failure' },
    { status: 'blocked', phase: 'failure' },
    { status: 'paused', phase: 'pending' },
    { status: 'halted', phase: 'failure' },
    { status: 'aborted', phase: 'failure' },
  ] as const)('a $status rollout is $phase', ({ status, phase }) => {
    expect(phaseOf(status)).toBe(phase);
  });

  it('plans one status for the commit, linking to the rollout page', () => {
    const planned = plannedStatuses(
      rollout([app('hub', 'a', 'synced'), app('spoke', 'b', 'failed')], 'partial'),
      {
        perCluster: false,
        pageUrl: 'https://sync.example/ui/rollouts/aaa',
      },
    );
    expect(planned).toEqual([
      {
        context: 'gitops-sync',
        phase: 'failure',
        description: '1/2 synced, 1 failed',
        targetUrl: 'https://sync.example/ui/rollouts/aaa',
      },
    ]);
  });

  it('adds one status per cluster when asked, an unreadable cluster counting as an error', () => {
    const planned = plannedStatuses(
      rollout([app('hub', 'a', 'synced'), app('spoke', 'b', 'syncing')], 'in-progress', {
        clusterErrors: { edge: 'timeout' },
      }),
      { perCluster: true },
    );
    expect(planned.map((s) => [s.context, s.phase, s.description])).toEqual([
      ['gitops-sync', 'running', '1/3 synced, 1 syncing, 1 error'],
      ['gitops-sync/edge', 'failure', '0/1 synced, 1 error'],
      ['gitops-sync/hub', 'success', '1/1 synced'],
      ['gitops-sync/spoke', 'running', '0/1 synced, 1 syncing'],
    ]);
  });

  it('plans nothing for a commit that matched no app', () => {
    expect(plannedStatuses(rollout([], 'succeeded'), { perCluster: true })).toEqual([]);
  });
});

describe('what a commit status says under release control', () => {
  const waves = (canary: 'open' | 'done' | 'halted', prod: 'waiting' | 'open' | 'halted'): WaveProgress[] => [
    { name: 'canary', state: canary, clusters: ['staging'] },
    {
      name: 'prod-eu',
      state: prod,
      clusters: ['prod-eu-1'],
      ...(prod === 'halted' ? { reason: '2 failed' } : {}),
    },
  ];
  const apps = [app('hub', 'a', 'syncing'), app('hub', 'b', 'held')];
  const head = (r: Rollout) => plannedStatuses(r, { perCluster: false })[0];

  it('waits (pending) while a later wave is held, naming the wave and what it waits for', () => {
    expect(head(rollout(apps, 'in-progress', { waves: waves('open', 'waiting') }))).toMatchObject({
      phase: 'pending',
      description: 'wave prod-eu waits for canary · 0/2 synced, 1 held, 1 syncing',
    });
    expect(head(rollout(apps, 'in-progress', { waves: waves('done', 'open') }))?.phase).toBe('running');
  });

  it('says on each cluster holding apps what holds them, with the wave or the pause, and leaves the others', () => {
    const fleet = [app('hub', 'a', 'synced'), app('hub', 'b', 'held'), app('edge', 'c', 'synced')];
    const perCluster = (r: Rollout) =>
      plannedStatuses(r, { perCluster: true })
        .slice(1)
        .map((s) => [s.context, s.phase, s.description]);
    expect(perCluster(rollout(fleet, 'in-progress', { waves: waves('open', 'waiting') }))).toEqual([
      ['gitops-sync/edge', 'success', '1/1 synced'],
      ['gitops-sync/hub', 'pending', 'wave prod-eu waits for canary · 1/2 synced, 1 held'],
    ]);
    expect(perCluster(rollout(fleet, 'halted', { waves: waves('done', 'halted') }))).toEqual([
      ['gitops-sync/edge', 'success', '1/1 synced'],
      ['gitops-sync/hub', 'failure', 'halted at wave prod-eu: 2 failed · 1/2 synced, 1 held'],
    ]);
    const paused = rollout(fleet, 'paused', {
      actions: [{ action: 'pause' as const, by: 'ops', at: '2026-12-01T09:01:00.000Z' }],
    });
    expect(perCluster(paused)[1]).toEqual([
      'gitops-sync/hub',
      'pending',
      'paused by ops · 1/2 synced, 1 held',
    ]);
  });

  it('waits while paused, naming who paused it', () => {
    const actions = [
      {
        action: 'pause' as const,
        by: 'arn:aws:sts::1:assumed-role/ops/alice',
        at: '2026-12-01T09:01:00.000Z',
      },
    ];
    expect(head(rollout(apps, 'paused', { actions }))).toMatchObject({
      phase: 'pending',
      description: 'paused by ops/alice · 0/2 synced, 1 held, 1 syncing',
    });
  });

  it('fails on a halt naming the wave and why, and on an abort naming who', () => {
    expect(head(rollout(apps, 'halted', { waves: waves('done', 'halted') }))).toMatchObject({
      phase: 'failure',
      description: 'halted at wave prod-eu: 2 failed · 0/2 synced, 1 held, 1 syncing',
    });
    const actions = [{ action: 'abort' as const, by: 'token', at: '2026-12-01T09:01:00.000Z' }];
    expect(head(rollout([app('hub', 'a', 'aborted')], 'aborted', { actions }))).toMatchObject({
      phase: 'failure',
      description: 'aborted by token · 0/1 synced, 1 aborted',
    });
  });

  it('keeps descriptions within 140 characters however long the halt reason', () => {
    const long = [{ name: 'prod', state: 'halted' as const, clusters: [], reason: 'x'.repeat(500) }];
    expect(head(rollout(apps, 'halted', { waves: long }))?.description).toHaveLength(140);
  });

  it('ranks a later view higher: a resume after a halt, a pause after running, a wave closing', () => {
    const halt = { action: 'halt' as const, by: 'gitops-sync', at: '2026-12-01T09:01:00.000Z' };
    const resume = { action: 'resume' as const, by: 'token', at: '2026-12-01T09:02:00.000Z' };
    const pause = { action: 'pause' as const, by: 'token', at: '2026-12-01T09:03:00.000Z' };
    const halted = statusRank(rollout(apps, 'halted', { actions: [halt] }), 'failure');
    const resumed = statusRank(rollout(apps, 'in-progress', { actions: [halt, resume] }), 'running');
    const paused = statusRank(rollout(apps, 'paused', { actions: [halt, resume, pause] }), 'pending');
    expect(resumed).toBeGreaterThan(halted);
    expect(paused).toBeGreaterThan(resumed);
    const first = statusRank(rollout(apps, 'in-progress', { waves: waves('open', 'waiting') }), 'pending');
    const second = statusRank(rollout(apps, 'in-progress', { waves: waves('done', 'waiting') }), 'pending');
    expect(second).toBeGreaterThan(first);
  });
});
