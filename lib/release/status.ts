import type { RolloutStatus } from '../rollouts/state-model.js';

/**
 * Release control has the last word while the rollout is not over: an abort, a halt or a pause says what
 * the rollout is (its apps' states alone would say `in-progress` for apps that wait on it).
 */
export function controlledStatus(
  derived: RolloutStatus,
  flags: { readonly aborted?: unknown; readonly halted?: unknown; readonly paused?: unknown },
): RolloutStatus {
  if (flags.aborted === true) return 'aborted';
  if (flags.halted === true) return 'halted';
  if (flags.paused === true && (derived === 'pending' || derived === 'in-progress')) return 'paused';
  return derived;
}
