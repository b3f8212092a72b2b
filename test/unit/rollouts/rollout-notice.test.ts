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

/** A reader whose `get` waits until released, so notices can be made to overlap. */
function slowReader(fail: () => boolean) {
  const gets: Array<() => void> = [];
  const reader: RolloutReader = {
    summary: async () => summary,
    get: () =>
      new Promise((resolve, reject) => {
        gets.push(() => (fail() ? reject(new Error('read failed')) : resolve(rollout)));
      }),
  } as unknown as RolloutReader;
  return { reader, gets };
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
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('rollout notice with Slack off: the end metrics', () => {
  it("reads an ended rollout's apps once when its notices overlap, and counts it once", async () => {
    const { reader, gets } = slowReader(() => false);
    const { counts, metrics } = counting();
    const notice = rolloutNotice({ rollouts: reader, notifier: off, logger: quiet, metrics });
    const all = Promise.all(Array.from({ length: 10 }, () => notice(summary.sha)));
    await tick();
    expect(gets).toHaveLength(1);
    for (const release of gets) release();
    await all;
    expect(counts.filter(([name]) => name === 'RolloutsEnded')).toEqual([['RolloutsEnded', 1]]);
    expect(counts).toContainEqual(['AppsSynced', 2]);
    await notice(summary.sha);
    expect(gets).toHaveLength(1);
  });

  it('lets a later notice count the rollout when the read that claimed it failed', async () => {
    let failing = true;
    const { reader, gets } = slowReader(() => failing);
    const { counts, metrics } = counting();
    const notice = rolloutNotice({ rollouts: reader, notifier: off, logger: quiet, metrics });
    const first = notice(summary.sha);
    await tick();
    gets[0]?.();
    await first;
    expect(counts).toEqual([]);
    failing = false;
    const second = notice(summary.sha);
    await tick();
    expect(gets).toHaveLength(2);
    gets[1]?.();
    await second;
    expect(counts.filter(([name]) => name === 'RolloutsEnded')).toEqual([['RolloutsEnded', 1]]);
  });
});
