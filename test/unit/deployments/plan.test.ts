import { describe, expect, it } from 'vitest';
import {
  deploymentPhase,
  environmentOf,
  isProduction,
  plannedDeployments,
  plannedDeploymentsOfCounts,
} from '../../../lib/deployments/plan.js';
import type { AppRecord } from '../../../lib/rollouts/app-model.js';
import { type AppState, countStates, type StateCounts } from '../../../lib/rollouts/state-model.js';

const clusters = [
  { name: 'hub' },
  { name: 'prod-eu', labels: { environment: 'production', tier: 'prod' } },
  { name: 'prod-us', labels: { environment: 'production', production: 'true' } },
  { name: 'staging', labels: { tier: 'staging' } },
  { name: 'lab', labels: { tier: 'prod', production: 'false' } },
];

function app(name: string, state: AppState, destination?: string, refreshed = false): AppRecord {
  return {
    cluster: 'hub',
    namespace: 'argocd',
    name,
    kind: 'Application',
    state,
    ...(destination === undefined ? {} : { destination }),
    ...(refreshed ? { refreshedAt: '2026-12-02T10:00:00Z' } : {}),
  };
}

describe('the phase of one environment, from its apps', () => {
  it.each<[string, AppState[], string]>([
    ['is in progress while an app is refreshed', ['refreshed', 'synced'], 'in_progress'],
    ['is in progress while an app syncs', ['syncing'], 'in_progress'],
    ['is in progress while an app is still held for its wave', ['synced', 'held'], 'in_progress'],
    ['succeeds when every app synced', ['synced', 'synced'], 'success'],
    ['succeeds when the apps not superseded synced', ['synced', 'superseded'], 'success'],
    ['fails when an app failed', ['synced', 'failed'], 'failure'],
    ['fails when an app ended degraded', ['degraded'], 'failure'],
    ['fails when an app stayed out of sync', ['out-of-sync', 'synced'], 'failure'],
    ['fails when an app was blocked', ['synced', 'blocked'], 'failure'],
    ['fails when a failure sits beside an error', ['failed', 'error'], 'failure'],
    ['errs when the rest only errored or timed out', ['synced', 'error', 'timeout'], 'error'],
    ['is inactive when every app was superseded by a later commit', ['superseded', 'superseded'], 'inactive'],
    ['is aborted when every app not superseded was aborted', ['aborted', 'superseded'], 'aborted'],
  ])('%s', (_name, states, phase) => {
    expect(deploymentPhase(states)).toBe(phase);
  });
});

describe('environment names and the production flag, from cluster labels', () => {
  it.each([
    ['the fleet name without an environment label', 'hub', 'hub'],
    ['the environment label when the cluster has one', 'prod-eu', 'production'],
    ['the cluster name for a destination the fleet does not know', 'elsewhere', 'elsewhere'],
  ])('names %s', (_name, cluster, environment) => {
    expect(environmentOf(cluster, clusters)).toBe(environment);
  });

  it.each([
    ['production: "true"', 'prod-us', true],
    ['tier: prod', 'prod-eu', true],
    ['no production label and another tier', 'staging', false],
    ['production: "false" over tier: prod', 'lab', false],
    ['no labels', 'hub', false],
  ])('is production by %s: %s', (_name, cluster, production) => {
    expect(isProduction(cluster, clusters)).toBe(production);
  });
});

describe('planned deployments of a rollout', () => {
  it('plans one per destination, to be created once one of its apps was refreshed', () => {
    const planned = plannedDeployments(
      {
        apps: [
          app('web', 'refreshed', 'staging'),
          app('api', 'matched', 'staging'),
          app('web', 'matched', 'hub'),
          app('db', 'held', 'lab'),
        ],
      },
      clusters,
    );
    expect(planned).toEqual([
      {
        environment: 'hub',
        clusters: ['hub'],
        production: false,
        phase: 'in_progress',
        description: '0/1 synced, 1 matched',
        refreshed: false,
        rank: 0,
      },
      {
        environment: 'lab',
        clusters: ['lab'],
        production: false,
        phase: 'in_progress',
        description: '0/1 synced, 1 held',
        refreshed: false,
        rank: 0,
      },
      {
        environment: 'staging',
        clusters: ['staging'],
        production: false,
        phase: 'in_progress',
        description: '0/2 synced, 1 matched, 1 refreshed',
        refreshed: true,
        rank: 0,
      },
    ]);
  });

  it('groups destinations sharing an environment label into one production deployment', () => {
    const planned = plannedDeployments(
      { apps: [app('web', 'synced', 'prod-us'), app('web', 'failed', 'prod-eu')] },
      clusters,
    );
    expect(planned).toMatchObject([
      { environment: 'production', clusters: ['prod-eu', 'prod-us'], production: true, phase: 'failure' },
    ]);
  });

  it('deploys an app without a destination to the cluster holding it', () => {
    expect(plannedDeployments({ apps: [app('web', 'synced')] }, clusters)).toMatchObject([
      { environment: 'hub', phase: 'success', description: '1/1 synced' },
    ]);
  });

  it('plans an environment whose apps were refreshed and then superseded as inactive', () => {
    const planned = plannedDeployments({ apps: [app('web', 'superseded', 'staging', true)] }, clusters);
    expect(planned).toMatchObject([{ environment: 'staging', phase: 'inactive', refreshed: true }]);
  });

  it('does not let an environment whose apps were superseded or blocked before any refresh be created', () => {
    const planned = plannedDeployments(
      { apps: [app('web', 'superseded', 'staging'), app('api', 'blocked', 'hub')] },
      clusters,
    );
    expect(planned.map((p) => [p.environment, p.phase, p.refreshed])).toEqual([
      ['hub', 'failure', false],
      ['staging', 'inactive', false],
    ]);
  });

  it("ranks final above in progress, and every operator's action above both", () => {
    const action = { action: 'retry' as const, by: 'token', at: '2026-12-02T10:00:00Z' };
    const ranks = [
      plannedDeployments({ apps: [app('web', 'syncing', 'hub')] }, clusters)[0]?.rank,
      plannedDeployments({ apps: [app('web', 'failed', 'hub')] }, clusters)[0]?.rank,
      plannedDeployments({ apps: [app('web', 'syncing', 'hub')], actions: [action] }, clusters)[0]?.rank,
    ];
    expect(ranks).toEqual([0, 1, 1000]);
  });
});

describe('the deployments from the digest’s per-destination counts', () => {
  const countsOf = (apps: readonly AppRecord[]) => {
    const out: Record<string, StateCounts> = {};
    for (const key of new Set(apps.map((a) => a.destination ?? a.cluster)))
      out[key] = countStates(apps.filter((a) => (a.destination ?? a.cluster) === key).map((a) => a.state));
    return out;
  };

  it.each<[string, AppRecord[]]>([
    [
      'a fleet mid-rollout',
      [app('a', 'synced', 'prod-eu'), app('b', 'syncing', 'prod-us'), app('c', 'matched', 'staging')],
    ],
    [
      'a fleet that ended',
      [app('a', 'synced', 'prod-eu'), app('b', 'failed', 'prod-us'), app('c', 'synced')],
    ],
    ['apps held for their wave', [app('a', 'held', 'staging'), app('b', 'held', 'lab')]],
    ['apps all superseded', [app('a', 'superseded', 'prod-eu'), app('b', 'superseded', 'prod-us')]],
  ])('plan what the app records plan for %s', (_, apps) => {
    const actions = [{ action: 'pause' as const, by: 'ops', at: '2026-12-02T10:00:00Z' }];
    expect(plannedDeploymentsOfCounts({ actions }, countsOf(apps), clusters)).toEqual(
      plannedDeployments({ apps, actions }, clusters),
    );
  });
});
