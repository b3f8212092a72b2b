import { describe, expect, it } from 'vitest';
import { planCheckRun, RETRY } from '../../../lib/check-run/plan.js';
import {
  CHECK_RUN_APPS_NAMED,
  endedOfDigest,
  planCheckRunOfDigest,
} from '../../../lib/check-run/plan-digest.js';
import type { AppRecord } from '../../../lib/rollouts/app-model.js';
import type { RolloutDigest } from '../../../lib/rollouts/rollout-digest.js';
import type { Rollout } from '../../../lib/rollouts/rollout-model.js';
import {
  type AppState,
  countStates,
  PROBLEM_STATES,
  type StateCounts,
} from '../../../lib/rollouts/state-model.js';
import { appRecord, rolloutOf } from '../../helpers/rollout-records.js';

const app = (cluster: string, name: string, state: AppState): AppRecord =>
  appRecord(cluster, name, state, state === 'failed' ? { message: 'ComparisonError: bad values.yaml' } : {});
const rollout = rolloutOf;

const PROBLEM: ReadonlySet<AppState> = new Set(PROBLEM_STATES);

/** The digest the store would give of `full`: per-cluster counts and its first problem apps. */
function digestOf(full: Rollout, limit = CHECK_RUN_APPS_NAMED): RolloutDigest {
  const { apps, ...summary } = full;
  const per = (of: (a: AppRecord) => string) => {
    const out: Record<string, StateCounts> = {};
    for (const key of new Set(apps.map(of)))
      out[key] = countStates(apps.filter((a) => of(a) === key).map((a) => a.state));
    return out;
  };
  return {
    summary,
    clusters: per((a) => a.cluster),
    destinations: per((a) => a.destination ?? a.cluster),
    waves: {},
    problems: apps.filter((a) => PROBLEM.has(a.state)).slice(0, limit),
    warned: [],
    warnedCount: 0,
  };
}

const many = (cluster: string, state: AppState, n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => app(cluster, `${state}-${from + i}`, state));

describe('the check run from a rollout digest', () => {
  it('shows the same title, conclusion, table and button as from every app record', () => {
    const apps = [...many('east', 'synced', 3), app('east', 'web', 'failed'), ...many('west', 'syncing', 2)];
    for (const status of ['in-progress', 'failed', 'aborted'] as const) {
      const full = rollout(apps, status, { clusterErrors: { north: 'connect ETIMEDOUT' } });
      const fromDigest = planCheckRunOfDigest(digestOf(full), { pageUrl: 'https://sync.example.com/r/a' });
      const fromApps = planCheckRun(full, { pageUrl: 'https://sync.example.com/r/a' });
      expect(fromDigest?.title).toBe(fromApps?.title);
      expect(fromDigest?.status).toBe(fromApps?.status);
      expect(fromDigest?.conclusion).toBe(fromApps?.conclusion);
      expect(fromDigest?.summary).toBe(fromApps?.summary);
      expect(fromDigest?.actions).toEqual(fromApps?.actions);
      expect(fromDigest?.detailsUrl).toBe('https://sync.example.com/r/a');
    }
    expect(planCheckRunOfDigest(digestOf(rollout(apps, 'in-progress')))?.actions).toEqual([RETRY]);
  });

  it('has a row per destination cluster of a hub, as from the app records', () => {
    const spoke = (name: string, state: AppState, destination: string) => ({
      ...app('hub', name, state),
      destination,
    });
    const full = rollout(
      [spoke('a', 'synced', 'spoke-eu'), spoke('b', 'failed', 'spoke-eu'), spoke('c', 'syncing', 'spoke-us')],
      'in-progress',
    );
    const plan = planCheckRunOfDigest(digestOf(full));
    expect(plan?.summary).toBe(planCheckRun(full)?.summary);
    expect(plan?.summary).toContain('| spoke-eu |');
    expect(plan?.summary).not.toContain('| hub |');
  });

  it('names the problem apps one by one and counts the apps still moving by state', () => {
    const full = rollout(
      [
        app('east', 'web', 'failed'),
        ...many('east', 'syncing', 4),
        ...many('west', 'refreshed', 2),
        ...many('west', 'synced', 5),
      ],
      'in-progress',
      { clusterErrors: { north: 'connect ETIMEDOUT' } },
    );
    const text = planCheckRunOfDigest(digestOf(full))?.text ?? '';
    expect(text).toContain('Apps not synced (8):');
    expect(text).toContain('- **north**: cluster not read — connect ETIMEDOUT');
    expect(text).toContain('- **east** argocd/web: failed — ComparisonError: bad values.yaml');
    expect(text).toContain('- 6 more not synced yet (2 refreshed, 4 syncing)');
    expect(text).not.toContain('syncing-0');
  });

  it('stays bounded for a rollout of 20,000 apps: the first problem apps, the others counted', () => {
    const full = rollout([...many('east', 'failed', 300), ...many('west', 'synced', 19_700)], 'failed');
    const plan = planCheckRunOfDigest(digestOf(full));
    const text = plan?.text ?? '';
    expect(text.split('\n').filter((l) => l.startsWith('- **east**'))).toHaveLength(CHECK_RUN_APPS_NAMED);
    expect(text).toContain(`- … ${300 - CHECK_RUN_APPS_NAMED} more problem apps: see the rollout page`);
    expect(plan?.title).toBe('19700/20000 synced, 300 failed');
    expect(plan?.conclusion).toBe('failure');
  });

  it('counts the apps that ended, which orders its views of one rollout', () => {
    const full = rollout(
      [...many('east', 'synced', 2), app('east', 'x', 'failed'), ...many('west', 'syncing', 3)],
      'in-progress',
    );
    expect(endedOfDigest(digestOf(full))).toBe(3);
  });

  it('plans nothing for a rollout without apps or cluster errors', () => {
    expect(planCheckRunOfDigest(digestOf(rollout([], 'pending')))).toBeUndefined();
  });
});
