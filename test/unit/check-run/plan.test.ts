import { describe, expect, it } from 'vitest';
import { hashOf } from '../../../lib/check-run/check-run-notice.js';
import { conclusionOf, planCheckRun } from '../../../lib/check-run/plan.js';
import { bounded, MAX_OUTPUT_CHARS } from '../../../lib/check-run/plan-markdown.js';
import { appRecord, rolloutOf } from '../../helpers/rollout-records.js';

const app = appRecord;
const rollout = rolloutOf;

describe('the check run conclusion per rollout status', () => {
  it.each([
    { status: 'succeeded', conclusion: 'success' },
    { status: 'failed', conclusion: 'failure' },
    { status: 'partial', conclusion: 'failure' },
    { status: 'halted', conclusion: 'failure' },
    { status: 'blocked', conclusion: 'failure' },
    { status: 'aborted', conclusion: 'cancelled' },
    { status: 'pending', conclusion: undefined },
    { status: 'in-progress', conclusion: undefined },
    { status: 'paused', conclusion: undefined },
  ] as const)('a $status rollout concludes $conclusion', ({ status, conclusion }) => {
    expect(conclusionOf(status)).toBe(conclusion);
    const plan = planCheckRun(rollout([app('c1', 'a', 'synced')], status));
    expect(plan?.status).toBe(conclusion === undefined ? 'in_progress' : 'completed');
    expect(plan?.conclusion).toBe(conclusion);
  });
});

describe('what the check run shows', () => {
  it('shows nothing for a rollout without apps', () => {
    expect(planCheckRun(rollout([], 'succeeded'))).toBeUndefined();
  });

  it('tables clusters × the states that occur, with totals, and links the rollout page', () => {
    const plan = planCheckRun(
      rollout(
        [
          app('c1', 'a', 'synced'),
          app('c1', 'b', 'failed'),
          app('c2', 'c', 'synced'),
          app('c2', 'd', 'syncing'),
        ],
        'in-progress',
      ),
      { pageUrl: 'https://sync.example/ui/rollouts/aaa' },
    );
    expect(plan?.title).toBe('2/4 synced, 1 syncing, 1 failed');
    expect(plan?.summary).toBe(
      [
        '| Cluster | syncing | synced | failed | total |',
        '| --- | ---: | ---: | ---: | ---: |',
        '| c1 | 0 | 1 | 1 | 2 |',
        '| c2 | 1 | 1 | 0 | 2 |',
      ].join('\n'),
    );
    expect(plan?.detailsUrl).toBe('https://sync.example/ui/rollouts/aaa');
  });

  it('adds the wave column and the waves table with what halted them when the rollout has waves', () => {
    const plan = planCheckRun(
      rollout(
        [app('canary', 'a', 'failed', { wave: 'canary' }), app('prod', 'b', 'held', { wave: 'prod' })],
        'halted',
        {
          waves: [
            {
              name: 'canary',
              state: 'halted',
              clusters: ['canary'],
              reason: '1 of 1 apps unhealthy: argocd/a',
            },
            { name: 'prod', state: 'waiting', clusters: ['prod'] },
          ],
        },
      ),
    );
    expect(plan?.title).toBe(
      'halted at wave canary: 1 of 1 apps unhealthy: argocd/a · 0/2 synced, 1 held, 1 failed',
    );
    expect(plan?.summary).toContain('| Cluster | Wave | held | failed | total |');
    expect(plan?.summary).toContain('| canary | canary | 0 | 1 | 1 |');
    expect(plan?.summary).toContain('| canary | halted | canary | 1 of 1 apps unhealthy: argocd/a |');
    expect(plan?.summary).toContain('| prod | waiting | prod |  |');
    expect(plan?.conclusion).toBe('failure');
  });

  it('lists each app not synced with its reason, and the clusters that could not be read', () => {
    const plan = planCheckRun(
      rollout(
        [
          app('c1', 'web', 'failed', {
            failures: [
              { kind: 'Deployment', name: 'web', status: 'SyncFailed', message: 'admission | denied' },
            ],
          }),
          app('c1', 'ok', 'synced'),
          app('c1', 'api', 'timeout', { syncStatus: 'OutOfSync', health: 'Progressing' }),
        ],
        'failed',
        { clusterErrors: { c9: 'HTTP 403 from the API server' } },
      ),
    );
    expect(plan?.text).toBe(
      [
        'Apps not synced (3):',
        '',
        '- **c9**: cluster not read — HTTP 403 from the API server',
        '- **c1** argocd/api: timeout — OutOfSync/Progressing',
        '- **c1** argocd/web: failed — Deployment web: admission \\| denied',
      ].join('\n'),
    );
  });

  it('offers "Retry failed" only while apps failed, within GitHub\'s limits', () => {
    const failed = planCheckRun(rollout([app('c1', 'a', 'failed'), app('c1', 'b', 'synced')], 'partial'));
    expect(failed?.actions).toEqual([
      { label: 'Retry failed', identifier: 'retry', description: expect.any(String) },
    ]);
    const [action] = failed?.actions ?? [];
    expect(action?.label.length).toBeLessThanOrEqual(20);
    expect(action?.description.length).toBeLessThanOrEqual(40);
    expect(action?.identifier.length).toBeLessThanOrEqual(20);
    expect(planCheckRun(rollout([app('c1', 'a', 'synced')], 'succeeded'))?.actions).toEqual([]);
    expect(planCheckRun(rollout([app('c1', 'a', 'syncing')], 'in-progress'))?.actions).toEqual([]);
    expect(
      planCheckRun(rollout([app('c1', 'a', 'aborted'), app('c1', 'b', 'failed')], 'aborted'))?.actions,
    ).toEqual([]);
  });

  it("cuts a text longer than GitHub's 65,535 characters at a line, saying how much is left out", () => {
    const apps = Array.from({ length: 2000 }, (_, i) =>
      app('c1', `app-${String(i).padStart(4, '0')}`, 'failed', { message: 'x'.repeat(400) }),
    );
    const text = planCheckRun(rollout(apps, 'failed'))?.text ?? '';
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_OUTPUT_CHARS);
    expect(text).toMatch(
      /_… \d+ more lines of apps not shown \(GitHub keeps 65,535 characters\): see the rollout page\._$/,
    );
    expect(text).toContain('argocd/app-0000');
    expect(text).not.toContain('argocd/app-1999');
  });

  it('leaves a short text as it is', () => {
    expect(bounded('a\nb', 'apps')).toBe('a\nb');
  });

  it('hashes equal views equally and a changed view differently (what coalesces updates)', () => {
    const one = planCheckRun(rollout([app('c1', 'a', 'syncing')], 'in-progress'));
    const same = planCheckRun(rollout([app('c1', 'a', 'syncing')], 'in-progress'));
    const moved = planCheckRun(rollout([app('c1', 'a', 'synced')], 'succeeded'));
    if (one === undefined || same === undefined || moved === undefined) throw new Error('no plan');
    expect(hashOf(one)).toBe(hashOf(same));
    expect(hashOf(one)).not.toBe(hashOf(moved));
  });
});
