import { describe, expect, it } from 'vitest';
import type { RolloutReader } from '../../../lib/rollouts/ports/rollout-reader.js';
import type { Rollout, RolloutSummary } from '../../../lib/rollouts/rollout-model.js';
import { rolloutNotice } from '../../../lib/rollouts/rollout-notice.js';

const summary: RolloutSummary = {
  sha: 'a'.repeat(40),
  repo: 'org/gitops',
  repoUrl: 'https://git.example/org/gitops',
  ref: 'refs/heads/main',
  refs: ['refs/heads/main'],
  trigger: 'webhook',
  receivedAt: '2026-12-01T10:00:00.000Z',
  finishedAt: '2026-12-01T10:02:00.000Z',
  status: 'succeeded',
  counts: { synced: 2 },
  decisions: { refreshed: 2 },
};
const app = (name: string) =>
  ({
    cluster: 'c-000',
    kind: 'Application',
    namespace: 'argocd',
    name,
    state: 'synced',
    refreshedAt: summary.receivedAt,
  }) as const;
const rollout: Rollout = { ...summary, apps: [app('a'), app('b')] };

/** A reader whose summary read can fail, and that counts the reads of every app (it should make none). */
function countingReader(fail: () => boolean) {
  const reads = { summaries: 0, apps: 0 };
  const reader: RolloutReader = {
    summary: async () => {
      reads.summaries += 1;
      if (fail()) throw new Error('read failed');
      return summary;
    },
    get: async () => {
      reads.apps += 1;
      return rollout;
    },
  } as unknown as RolloutReader;
  return { reader, reads };
}

function counting() {
  const counts: Array<[string, number]> = [];
  return {
    counts,
    metrics: {
      count: (name: string, value = 1) => counts.push([name, value]),
      timing: () => {},
      flush: () => {},
    },
  };
}

const quiet = { info() {}, warn() {}, error() {}, debug() {}, child: () => quiet } as never;
const off = { active: false, notify: async () => ({ errors: [] }) } as never;

describe('rollout notice with Slack off: the end metrics', () => {
  it('counts an ended rollout once from its summary, however many notices see it, and reads no app', async () => {
    const { reader, reads } = countingReader(() => false);
    const { counts, metrics } = counting();
    const notice = rolloutNotice({ rollouts: reader, notifier: off, logger: quiet, metrics });
    await Promise.all(Array.from({ length: 10 }, () => notice(summary.sha)));
    await notice(summary.sha);
    expect(reads).toEqual({ summaries: 11, apps: 0 });
    expect(counts.filter(([name]) => name === 'RolloutsEnded')).toEqual([['RolloutsEnded', 1]]);
    expect(counts).toContainEqual(['AppsSynced', 2]);
    expect(counts).toContainEqual(['AppsRefreshed', 2]);
    expect(counts).toContainEqual(['AppsFailed', 0]);
  });

  it('adds the refreshed decisions of both kinds and folds failed, degraded and error into AppsFailed', async () => {
    const { counts, metrics } = counting();
    const ended: RolloutSummary = {
      ...summary,
      status: 'failed',
      counts: { synced: 5, failed: 1, degraded: 2, error: 3, timeout: 1 },
      decisions: { refreshed: 9, 'refreshed-unknown-files': 3, 'paths-miss': 400, blocked: 1 },
    };
    const reader = { summary: async () => ended } as unknown as RolloutReader;
    await rolloutNotice({ rollouts: reader, notifier: off, logger: quiet, metrics })(summary.sha);
    expect(counts).toContainEqual(['AppsRefreshed', 12]);
    expect(counts).toContainEqual(['AppsFailed', 6]);
    expect(counts).toContainEqual(['AppsTimedOut', 1]);
    expect(counts).toContainEqual(['AppsSynced', 5]);
  });

  it('lets a later notice count the rollout when the summary read failed', async () => {
    let failing = true;
    const { reader } = countingReader(() => failing);
    const { counts, metrics } = counting();
    const notice = rolloutNotice({ rollouts: reader, notifier: off, logger: quiet, metrics });
    await notice(summary.sha);
    expect(counts).toEqual([]);
    failing = false;
    await notice(summary.sha);
    expect(counts.filter(([name]) => name === 'RolloutsEnded')).toEqual([['RolloutsEnded', 1]]);
  });
});
