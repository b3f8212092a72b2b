import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { FanoutMessage } from '../../../lib/queue/messages.js';
import { type PlanDeps, planPush } from '../../../lib/rollouts/plan.js';
import { githubPushEvent } from '../../helpers/push-event.js';

const event = githubPushEvent();

/** A promise the test settles, and whether it has been. */
function gate<T = void>() {
  let settle: { resolve: (v: T) => void; reject: (e: unknown) => void } | undefined;
  const promise = new Promise<T>((resolve, reject) => {
    settle = { resolve, reject };
  });
  return { promise, ...(settle as NonNullable<typeof settle>) };
}

/** Plan deps that log each step's start as `step` (and its end as `step done`), each waiting on `waits`. */
function recordingDeps(waits: Partial<Record<string, Promise<unknown>>>) {
  const steps: string[] = [];
  const sent: FanoutMessage[] = [];
  const step =
    <R>(name: string, value: R) =>
    async (): Promise<R> => {
      steps.push(name);
      await waits[name];
      steps.push(`${name} done`);
      return value;
    };
  const deps: PlanDeps = {
    fleet: { clusters: [{ name: 'hub' }, { name: 'spoke' }] as never },
    rollouts: { start: step('start', 'created'), planClusters: step('planClusters', undefined) } as never,
    open: { open: step('open', undefined) },
    refPushes: { record: step('record', undefined), recent: step('recent', []) } as never,
    remoteHead: step('remoteHead', event.after),
    changedFiles: step('changedFiles', event.changedFiles),
    queue: {
      send: async (message) => {
        sent.push(message);
      },
      sendBatch: async (entries) => {
        steps.push('send');
        sent.push(...entries.map((e) => e.message));
      },
    },
    clock: { now: () => new Date('2030-01-01T00:00:01.000Z') },
    logger: createMemoryLogger(),
    trackDeadlineSeconds: 600,
    release: { initWaves: step('initWaves', false), supersede: step('supersede', 0) },
  };
  return { deps, steps, sent };
}

describe("planning a push: the rollout's records and the Git host's answers side by side", () => {
  it('asks the Git host while the rollout is started, and writes into the summary only once it exists', async () => {
    const start = gate();
    const { deps, steps, sent } = recordingDeps({ start: start.promise });
    const planned = planPush({ type: 'push', trigger: 'webhook', event }, deps);
    await new Promise((resolve) => setImmediate(resolve));
    // The rollout's start has not answered yet: the file list, the ref's record and its head are asked.
    expect(steps).toEqual(expect.arrayContaining(['start', 'changedFiles', 'record', 'remoteHead']));
    expect(steps).not.toContain('open');
    expect(steps).not.toContain('initWaves');
    expect(steps).not.toContain('planClusters');
    start.resolve();
    expect(await planned).toEqual({ clusters: ['hub', 'spoke'] });
    const at = (name: string) => steps.indexOf(name);
    for (const name of ['open', 'initWaves', 'planClusters'])
      expect(at(name)).toBeGreaterThan(at('start done'));
    // The work items go out after every write and answer they depend on.
    for (const name of [
      'open done',
      'initWaves done',
      'planClusters done',
      'changedFiles done',
      'record done',
    ])
      expect(at('send')).toBeGreaterThan(at(name));
    expect(sent).toHaveLength(2);
  });

  it('fails with nothing sent when either side fails, after both have settled (no failure left unhandled)', async () => {
    for (const failing of ['changedFiles', 'planClusters', 'record']) {
      const failure = gate();
      const other = gate();
      const { deps, steps, sent } = recordingDeps({
        [failing]: failure.promise,
        // The other side is still writing when the failure comes.
        ...(failing === 'planClusters' ? { changedFiles: other.promise } : { start: other.promise }),
      });
      const planned = planPush({ type: 'push', trigger: 'webhook', event }, deps);
      let settled = false;
      planned.then(
        () => {
          settled = true;
        },
        () => {
          settled = true;
        },
      );
      await new Promise((resolve) => setImmediate(resolve));
      failure.reject(new Error(`${failing} refused`));
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled, failing).toBe(false);
      other.resolve();
      await expect(planned, failing).rejects.toThrow(`${failing} refused`);
      expect(sent, failing).toEqual([]);
      expect(steps, failing).not.toContain('send');
    }
  });

  it("still judges the ref's head from the pushes received when the Git host cannot say", async () => {
    const { deps, steps, sent } = recordingDeps({});
    const failingHead: PlanDeps = { ...deps, remoteHead: () => Promise.reject(new Error('host down')) };
    await planPush({ type: 'push', trigger: 'webhook', event }, failingHead);
    expect(steps.indexOf('recent')).toBeGreaterThan(steps.indexOf('record done'));
    expect(sent).toHaveLength(2);
  });
});
