import { describe, expect, it } from 'vitest';
import { phaseOf, plannedStatuses, summaryLine } from '../../../lib/commit-status/plan.js';
import type { AppRecord, AppState, Rollout } from '../../../lib/rollouts/model.js';

const app = (cluster: string, name: string, state: AppState): AppRecord => ({
  cluster,
  namespace: 'argocd',
  name,
  kind: 'Application',
  state,
});

const rollout = (apps: AppRecord[], status: Rollout['status'], extra: Partial<Rollout> = {}): Rollout => ({
  sha: 'a'.repeat(40),
  repo: 'org/gitops',
  repoUrl: 'https://github.com/org/gitops',
  ref: 'refs/heads/main',
  refs: ['refs/heads/main'],
  trigger: 'webhook',
  receivedAt: '2026-12-01T09:00:00.000Z',
  status,
  counts: {},
  decisions: {},
  apps,
  ...extra,
});

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
