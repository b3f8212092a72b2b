import type { SyncedSummary } from '../rollouts/ports/app-state.js';
import type { WaveProgress } from '../rollouts/rollout-model.js';
import type { GateOutcome, ReleaseEngineDeps } from './ports.js';
import { judgeWave } from './wave-judge.js';

/** Who the engine's own actions are recorded as. */
export const ENGINE = 'gitops-sync';
/** SQS's longest delay: a longer soak is waited out in several hops. */
const MAX_DELAY_SECONDS = 900;
const ENDED_WAVE: ReadonlySet<WaveProgress['state']> = new Set(['done', 'superseded', 'aborted']);

/**
 * A rollout's gate: the first wave not yet ended is judged on its apps' counts; it soaks, halts the rollout,
 * or ends and opens the next (its held apps released, its deadline restarted). Every move is a conditional
 * write on the state it was judged from, so any number of pollers, gate messages and the sweep may judge it.
 */
export function createGate(
  deps: ReleaseEngineDeps,
  engine: {
    release(sha: string): Promise<number>;
    restartDeadline(sha: string): Promise<void>;
  },
) {
  const log = deps.logger.child({ part: 'release' });
  const { release, restartDeadline } = engine;

  /** Opens wave `index` (false: it was open already, or no longer waiting), releasing its apps. */
  async function openWave(sha: string, waves: readonly WaveProgress[], index: number): Promise<boolean> {
    const wave = waves[index];
    if (wave === undefined) return false;
    const now = deps.clock.now();
    if (
      !(await deps.control.moveWave(sha, index, ['waiting'], { state: 'open', openedAt: now.toISOString() }))
    ) {
      return false;
    }
    // Its apps start their deadline now, not at the push.
    await restartDeadline(sha);
    await deps.control.recordAction(sha, {
      action: 'open-wave',
      by: ENGINE,
      at: now.toISOString(),
      detail: wave.name,
    });
    await release(sha);
    log.info('wave opened', { sha, wave: wave.name });
    return true;
  }

  async function soakUntil(sha: string, until: Date): Promise<void> {
    const seconds = Math.ceil((until.getTime() - deps.clock.now().getTime()) / 1000);
    await deps.queue.send(
      { type: 'gate', sha },
      { delaySeconds: Math.max(1, Math.min(MAX_DELAY_SECONDS, seconds + 1)) },
    );
  }

  /**
   * Looks at the rollout's waves: the first not yet ended is judged on its apps' counts (every cluster's
   * work item done first); it soaks, halts the rollout, or ends and opens the next. Safe to run from any
   * number of pollers at once: each move is conditional on the state it was judged from.
   */
  async function advance(
    sha: string,
    known?: SyncedSummary,
    options: { readonly skipFailed?: boolean; readonly fromGate?: boolean } = {},
  ): Promise<GateOutcome> {
    const summary = known ?? (await deps.records.viewSummary(sha));
    const waves = summary?.waves ?? [];
    if (summary === undefined || waves.length === 0 || summary.aborted === true || summary.paused === true) {
      return { sha };
    }
    if (summary.halted === true && options.skipFailed !== true) return { sha };
    const progress = Object.values(summary.clusters ?? {});
    if (progress.some((p) => p === 'planned' || p === 'retrying')) return { sha };
    const index = waves.findIndex((w) => !ENDED_WAVE.has(w.state));
    const wave = waves[index];
    if (wave === undefined) return { sha };
    if (wave.state === 'waiting') {
      return (await openWave(sha, waves, index)) ? { sha, opened: wave.name } : { sha };
    }
    const definition = deps.waves().find((w) => w.name === wave.name) ?? {
      name: wave.name,
      clusters: wave.clusters,
      soakMs: 0,
      maxUnhealthy: { count: 0 },
    };
    const now = deps.clock.now();
    const skipFailed = wave.state === 'halted' && (options.skipFailed === true || wave.skipFailed === true);
    if (skipFailed && wave.skipFailed !== true) {
      // The operator's word outlives this message: apps still moving end later, judged by a poll.
      await deps.control.moveWave(sha, index, ['halted'], { state: 'halted', skipFailed: true });
    }
    const judged = judgeWave(definition, summary.waveViews?.[wave.name], now, { skipFailed });
    switch (judged.kind) {
      case 'wait':
        return { sha };
      case 'halt': {
        if (wave.state === 'halted') {
          // Resumed without skipFailed while still over the bound: it halts again, unless a resume with
          // skipFailed has moved the wave on meanwhile (two gate messages of one resume run side by side).
          await deps.control.haltWave(sha, index);
          return { sha, halted: wave.name };
        }
        if (
          !(await deps.control.moveWave(sha, index, ['open', 'soaking'], {
            state: 'halted',
            reason: judged.reason,
          }))
        ) {
          return { sha };
        }
        await deps.control.haltWave(sha, index);
        await deps.control.recordAction(sha, {
          action: 'halt',
          by: ENGINE,
          at: now.toISOString(),
          detail: `wave ${wave.name}: ${judged.reason}`,
        });
        log.warn('rollout halted', { sha, wave: wave.name, reason: judged.reason });
        return { sha, halted: wave.name };
      }
      case 'soak': {
        if (wave.state === 'open') {
          const until = judged.until.toISOString();
          if (await deps.control.moveWave(sha, index, ['open'], { state: 'soaking', soakUntil: until })) {
            await soakUntil(sha, judged.until);
          }
        } else if (options.fromGate === true) await soakUntil(sha, judged.until);
        return { sha };
      }
      case 'next': {
        if (
          !(await deps.control.moveWave(sha, index, [wave.state], {
            state: 'done',
            doneAt: now.toISOString(),
          }))
        ) {
          return { sha };
        }
        if (wave.state === 'halted') await deps.control.setFlag(sha, 'halted', false);
        const next = index + 1;
        if (next >= waves.length) return { sha };
        return (await openWave(sha, waves, next)) ? { sha, opened: waves[next]?.name as string } : { sha };
      }
    }
  }

  return { advance };
}
