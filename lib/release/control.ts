import type { Clock } from '../ports.js';
import type { AppRecord, AppTarget } from '../rollouts/app-model.js';
import type { OperatorAction, OperatorActionName } from '../rollouts/rollout-model.js';
import type { AppState, RolloutStatus } from '../rollouts/state-model.js';
import type { ControlOutcome, ControlState, ControlStore, ReleaseControl } from './ports.js';

/**
 * What the engine does after an operator's action (queue messages in AWS). Each is optional: without
 * `release` and `gate` only the state is written (the pollers and the sweep read it); without `retry`,
 * retrying is a conflict ("retrying is not enabled").
 */
export interface ControlEngine {
  /** Re-evaluates the rollout's held apps (a resume or an abort lifted what held them). */
  release(sha: string): Promise<void>;
  /** Looks at the waves again; `skipFailed` opens the next wave despite a halted one. */
  gate(sha: string, options: { readonly skipFailed: boolean }): Promise<void>;
  /** Preflights and refreshes these apps again. */
  retry(sha: string, apps: readonly AppTarget[]): Promise<void>;
}

export interface ReleaseControlDeps extends Partial<ControlEngine> {
  readonly store: ControlStore;
  /** The rollout's apps (held ones decide whether it ended; failed ones are what `retry` retries). */
  readonly apps: (sha: string) => Promise<readonly AppRecord[]>;
  readonly clock: Clock;
}

/** States an app can be retried from. */
export const RETRYABLE: ReadonlySet<AppState> = new Set(['blocked', 'error', 'timeout', 'failed']);
const ENDED: ReadonlySet<RolloutStatus> = new Set(['succeeded', 'failed', 'partial', 'blocked']);

type State = ControlState & { readonly status: RolloutStatus };

const conflict = (error: string): ControlOutcome => ({ kind: 'conflict', error });

/**
 * The operators' actions on a rollout: each checks the rollout's control state, changes it with the
 * store's conditional writes (a lost race is a conflict, never a double action), records who did it and
 * hands the rest to the engine.
 */
export function createReleaseControl(deps: ReleaseControlDeps): ReleaseControl {
  const { store } = deps;

  async function ended(sha: string, state: State): Promise<boolean> {
    if (state.aborted === true || state.status === 'aborted') return true;
    if (!ENDED.has(state.status)) return false;
    return !(await deps.apps(sha)).some((app) => app.state === 'held');
  }

  async function record(sha: string, action: OperatorActionName, by: string, detail?: string) {
    const entry: OperatorAction = {
      action,
      by,
      at: deps.clock.now().toISOString(),
      ...(detail === undefined ? {} : { detail }),
    };
    await store.recordAction(sha, entry);
    return { kind: 'ok', ...(detail === undefined ? {} : { detail }) } as const;
  }

  return {
    async pause(sha, by) {
      const state = await store.read(sha);
      if (state === undefined) return { kind: 'not-found' };
      if (state.paused === true) return conflict('the rollout is paused already');
      if (state.aborted === true) return conflict('the rollout is aborted');
      if (await ended(sha, state)) return conflict(`the rollout has ended (${state.status})`);
      if (!(await store.setFlag(sha, 'paused', true))) return conflict('the rollout is paused already');
      return record(sha, 'pause', by);
    },

    async resume(sha, by, options = {}) {
      const state = await store.read(sha);
      if (state === undefined) return { kind: 'not-found' };
      if (state.aborted === true) return conflict('the rollout is aborted');
      if (state.paused !== true && state.halted !== true)
        return conflict('the rollout is neither halted nor paused');
      if (options.skipFailed === true && state.halted === true) {
        // Written on the halted wave before the flag clears: a poll that judges it in between (its apps
        // still moving) honours the operator's word instead of halting it again.
        const index = (state.waves ?? []).findIndex((w) => w.state === 'halted');
        if (index >= 0) await store.moveWave(sha, index, ['halted'], { state: 'halted', skipFailed: true });
      }
      // Only one of two racing resumes clears a flag; the other has nothing left to resume.
      const unpaused = state.paused === true && (await store.setFlag(sha, 'paused', false));
      const unhalted = state.halted === true && (await store.setFlag(sha, 'halted', false));
      if (!unpaused && !unhalted) return conflict('the rollout is neither halted nor paused');
      const skipFailed = options.skipFailed === true && unhalted;
      // Recorded as soon as the state changed: who acted stays on record even if the engine call fails.
      const outcome = await record(sha, 'resume', by, skipFailed ? 'skipFailed' : undefined);
      await deps.gate?.(sha, { skipFailed });
      await deps.release?.(sha);
      return outcome;
    },

    async abort(sha, by) {
      const state = await store.read(sha);
      if (state === undefined) return { kind: 'not-found' };
      if (state.aborted === true) return conflict('the rollout is aborted already');
      if (await ended(sha, state)) return conflict(`the rollout has ended (${state.status})`);
      if (!(await store.setFlag(sha, 'aborted', true))) return conflict('the rollout is aborted already');
      let waves = 0;
      for (const [index, wave] of (state.waves ?? []).entries()) {
        if (wave.state !== 'waiting') continue;
        if (await store.moveWave(sha, index, ['waiting'], { state: 'aborted', reason: `aborted by ${by}` }))
          waves += 1;
      }
      const outcome = await record(
        sha,
        'abort',
        by,
        waves === 0 ? undefined : `${waves} ${waves === 1 ? 'wave' : 'waves'}`,
      );
      await deps.release?.(sha);
      return outcome;
    },

    async retry(sha, by, only = {}) {
      const state = await store.read(sha);
      if (state === undefined) return { kind: 'not-found' };
      if (state.aborted === true) return conflict('the rollout is aborted');
      const send = deps.retry;
      if (send === undefined) return conflict('retrying is not enabled');
      const apps = (await deps.apps(sha)).filter(
        (app) =>
          RETRYABLE.has(app.state) &&
          (only.cluster === undefined || app.cluster === only.cluster) &&
          (only.namespace === undefined || app.namespace === only.namespace) &&
          (only.name === undefined || app.name === only.name),
      );
      if (apps.length === 0) return conflict('nothing to retry');
      const targets = apps.map(({ cluster, namespace, name, kind }) => ({ cluster, namespace, name, kind }));
      await send(sha, targets);
      return record(sha, 'retry', by, `${targets.length} ${targets.length === 1 ? 'app' : 'apps'}`);
    },
  };
}
