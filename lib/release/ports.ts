import type { Clock, Logger, Queue } from '../ports.js';
import type { FanoutMessage } from '../queue/messages.js';
import type { AppTarget } from '../rollouts/app-model.js';
import type { OpenRollouts } from '../rollouts/ports/open-rollouts.js';
import type { ReleaseRecords } from '../rollouts/ports/release-records.js';
import type { Freeze, OperatorAction, RolloutSummary, WaveProgress } from '../rollouts/rollout-model.js';
import type { ReleaseWave } from './wave-judge.js';

/**
 * Release control's state of one rollout, kept on its summary item: the waves in order, a pause, an abort,
 * and the operators' actions. Every change is a conditional write, so two pollers (or a poller and the
 * sweep) that see a gate at the same moment open a wave exactly once.
 */
export interface ControlState {
  readonly waves?: readonly WaveProgress[];
  readonly paused?: boolean;
  readonly aborted?: boolean;
  readonly halted?: boolean;
}

export interface ControlStore {
  /** The rollout's control state (undefined: no such rollout). */
  read(sha: string): Promise<(ControlState & Pick<RolloutSummary, 'status'>) | undefined>;
  /** Writes the rollout's waves unless it has them already (a redelivered push never resets them). */
  initWaves(sha: string, waves: readonly WaveProgress[]): Promise<void>;
  /**
   * Moves wave `index` from one of `from` to `to` (with the fields given); false when it was not in one of
   * `from` any more (someone else moved it first).
   */
  moveWave(
    sha: string,
    index: number,
    from: readonly WaveProgress['state'][],
    to: Partial<WaveProgress> & Pick<WaveProgress, 'state'>,
  ): Promise<boolean>;
  /** Sets (or clears) `paused`, `aborted` or `halted`; false when it already had that value. */
  setFlag(sha: string, flag: 'paused' | 'aborted' | 'halted', value: boolean): Promise<boolean>;
  /** Sets `halted` only while wave `index` is still `halted` (false otherwise). */
  haltWave(sha: string, index: number): Promise<boolean>;
  /** Appends an action to the rollout's history (the oldest are dropped past a bound). */
  recordAction(sha: string, action: OperatorAction): Promise<void>;
}

/** Freezes, fleet-wide: created and lifted by operators, read by every work item. */
export interface FreezeStore {
  create(freeze: Freeze): Promise<void>;
  /** Freezes in force at `now` (ended ones are left out). */
  list(now: Date): Promise<readonly Freeze[]>;
  /** False when there was no such freeze. */
  remove(id: string): Promise<boolean>;
}

/** What an operator's action on a rollout came to. */
export type ControlOutcome =
  | { readonly kind: 'ok'; readonly detail?: string }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'conflict'; readonly error: string };

/** The operators' actions on one rollout (the control routes and the CLI call these). */
export interface ReleaseControl {
  pause(sha: string, by: string): Promise<ControlOutcome>;
  resume(sha: string, by: string, options?: { readonly skipFailed?: boolean }): Promise<ControlOutcome>;
  abort(sha: string, by: string): Promise<ControlOutcome>;
  retry(
    sha: string,
    by: string,
    only?: Partial<Pick<AppTarget, 'cluster' | 'namespace' | 'name'>>,
  ): Promise<ControlOutcome>;
}

/** What the release engine and its gate run on. */
export interface ReleaseEngineDeps {
  readonly control: ControlStore;
  readonly records: ReleaseRecords;
  readonly open: Pick<OpenRollouts, 'open'>;
  readonly queue: Queue<FanoutMessage>;
  /** The fleet's waves in order (empty: no waves, one implicit wave as before). */
  readonly waves: () => readonly ReleaseWave[];
  readonly clock: Clock;
  readonly logger: Logger;
  readonly trackDeadlineSeconds: number;
}

export interface GateOutcome {
  readonly sha: string;
  readonly opened?: string;
  readonly halted?: string;
}
