import { describe, expect, it } from 'vitest';
import { isRolloutEnded, rolloutProgress } from '../../../lib/notify/notice-plan.js';
import { renderRolloutMessage } from '../../../lib/notify/rollout-message.js';
import type { RolloutSnapshot } from '../../../lib/notify/types.js';
import { type AppRecord, warnReasonsOf } from '../../../lib/rollouts/app-model.js';
import type { RolloutDigest } from '../../../lib/rollouts/rollout-digest.js';
import type { RolloutSummary, WaveProgress } from '../../../lib/rollouts/rollout-model.js';
import { snapshotOf, snapshotOfDigest } from '../../../lib/rollouts/rollout-notice.js';
import { type AppState, countStates, deriveRolloutStatus } from '../../../lib/rollouts/state-model.js';
import { PROBLEM_STATES } from '../../../lib/store/problem-apps.js';
import { appRecord } from '../../helpers/slack.js';

/** What the store's digest would hold for these apps: views per cluster and wave, the first problems. */
function digestOf(summary: RolloutSummary, apps: readonly AppRecord[], limit: number): RolloutDigest {
  const per = (key: (a: AppRecord) => string | undefined) => {
    const out: Record<string, Record<string, number>> = {};
    for (const app of apps) {
      const k = key(app);
      if (k === undefined) continue;
      out[k] = { ...(out[k] ?? {}), [app.state]: (out[k]?.[app.state] ?? 0) + 1 };
    }
    return out;
  };
  const order = (s: AppState) => PROBLEM_STATES.indexOf(s);
  const problems = apps
    .filter((a) => order(a.state) >= 0)
    .sort((a, b) => order(a.state) - order(b.state) || a.name.localeCompare(b.name));
  const warned = apps.filter((a) => warnReasonsOf(a).length > 0);
  return {
    summary,
    clusters: per((a) => a.cluster),
    destinations: per((a) => a.destination ?? a.cluster),
    waves: per((a) => a.wave),
    problems: problems.slice(0, limit),
    warned: warned.slice(0, limit),
    warnedCount: warned.length,
  };
}

function both(apps: readonly AppRecord[], extra: Partial<RolloutSummary> = {}, limit = 40) {
  const summary: RolloutSummary = {
    sha: '3f2a9c1b7d4e5f60718293a4b5c6d7e8f9012345',
    repo: 'org/gitops',
    repoUrl: 'https://github.com/org/gitops',
    ref: 'refs/heads/main',
    refs: ['refs/heads/main', 'refs/tags/v1.4.2'],
    trigger: 'webhook',
    receivedAt: '2026-12-02T10:00:00.000Z',
    status: deriveRolloutStatus(apps.map((a) => a.state)),
    counts: countStates(apps.map((a) => a.state)),
    decisions: {},
    author: 'Jane Doe',
    commitTitle: 'Bump web',
    ...extra,
  };
  const at = { renderedAt: '2026-12-02T10:03:00.000Z' };
  const full: RolloutSnapshot = { ...snapshotOf({ ...summary, apps }), ...at };
  const digest: RolloutSnapshot = { ...snapshotOfDigest(digestOf(summary, apps, limit)), ...at };
  return { full, digest };
}

const many = (n: number, state: AppState, prefix: string, cluster = 'hub-eu') =>
  Array.from({ length: n }, (_, i) =>
    appRecord(`${prefix}-${String(i).padStart(4, '0')}`, { state, cluster, message: `${state} ${i}` }),
  );

describe('a notice built from the digest (views and the first problem apps)', () => {
  it('renders the same message as one built from every app, while it runs and once it ended', () => {
    const running = [
      ...many(300, 'synced', 'ok'),
      ...many(200, 'syncing', 'moving', 'spoke-b'),
      ...many(3, 'failed', 'bad', 'spoke-b'),
      ...many(2, 'out-of-sync', 'drift'),
      appRecord('helm', {
        state: 'synced',
        preflight: { verdict: 'warn', reasons: ['Helm chart templates are not rendered'] },
      }),
    ];
    const a = both(running, { clusterErrors: { 'spoke-c': 'cannot list objects: 503' } });
    expect(renderRolloutMessage(a.digest)).toEqual(renderRolloutMessage(a.full));
    expect(rolloutProgress(a.digest)).toBe(rolloutProgress(a.full));
    expect(isRolloutEnded(a.digest)).toBe(false);

    const ended = [...many(500, 'synced', 'ok'), ...many(3, 'failed', 'bad'), ...many(4, 'timeout', 't')];
    const b = both(ended, { finishedAt: '2026-12-02T10:02:10.000Z' });
    expect(isRolloutEnded(b.digest)).toBe(true);
    expect(renderRolloutMessage(b.digest)).toEqual(renderRolloutMessage(b.full));
  });

  it('names at most the apps it read and counts the rest from the views (a mass failure)', () => {
    const apps = [...many(19_000, 'synced', 'ok'), ...many(1_000, 'failed', 'bad')];
    const { full, digest } = both(apps);
    expect(digest.apps).toHaveLength(40);
    const message = renderRolloutMessage(digest);
    expect(message).toEqual(renderRolloutMessage(full));
    expect(JSON.stringify(message)).toContain('20000 apps');
    expect(JSON.stringify(message)).toContain('more apps not synced');
  });

  it('keeps the wave lines, counted per wave', () => {
    const waves: WaveProgress[] = [
      { name: 'canary', state: 'done', clusters: ['hub-eu'] },
      { name: 'prod', state: 'halted', clusters: ['spoke-b'], reason: '2 failed (maxUnhealthy 0)' },
    ];
    const apps = [
      ...many(5, 'synced', 'c').map((a) => ({ ...a, wave: 'canary' })),
      ...many(2, 'failed', 'p', 'spoke-b').map((a) => ({ ...a, wave: 'prod' })),
      ...many(3, 'synced', 'q', 'spoke-b').map((a) => ({ ...a, wave: 'prod' })),
    ];
    const { full, digest } = both(apps, { status: 'halted', waves });
    const text = JSON.stringify(renderRolloutMessage(digest));
    expect(text).toContain('*canary* done · 5/5 synced');
    expect(text).toContain('*prod* halted · 3/5 synced');
    expect(renderRolloutMessage(digest)).toEqual(renderRolloutMessage(full));
  });
});
