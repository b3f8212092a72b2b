import type { FanoutMessage, GateMessage } from '../queue/messages.js';
import { type ClusterWorkDeps, type ClusterWorkResult, runClusterWork } from './cluster-work.js';
import { type PlanDeps, type PlanResult, planPush } from './plan.js';

export type { Preflight, PreflightVerdict } from './work-model.js';

export type FanoutDeps = ClusterWorkDeps &
  Omit<PlanDeps, 'rollouts' | 'fleet'> & {
    /** Release control: look at a rollout's waves (a soak ended). */
    readonly onGate?: (message: GateMessage) => Promise<GateResult>;
    /** `gitops-sync unpin`: followed revisions restored across the fleet. */
    readonly onUnpin?: (repo: string | undefined) => Promise<{ readonly unpinned: number }>;
  };

export interface GateResult {
  readonly sha: string;
  readonly opened?: string;
  readonly halted?: string;
  readonly unpinned?: number;
}

/**
 * The fanout queue carries two kinds of work: a push to plan (from the webhook or the catch-up), and one
 * push on one cluster (from the plan, or a retry of what a cluster's work item could not finish).
 */
export async function fanout(
  message: FanoutMessage,
  deps: FanoutDeps,
  budget: { readonly deadlineMs: number },
): Promise<PlanResult | ClusterWorkResult | GateResult> {
  if (message.type === 'push') return planPush(message, deps);
  if (message.type === 'unpin') {
    const report = await deps.onUnpin?.(message.repo);
    return { sha: '', ...(report === undefined ? {} : { unpinned: report.unpinned }) };
  }
  if (message.type === 'gate') return deps.onGate === undefined ? { sha: message.sha } : deps.onGate(message);
  return runClusterWork(message, deps, budget);
}
