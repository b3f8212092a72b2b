import {
  APP_STATES,
  type AppState,
  deriveRolloutStatus,
  type Rollout,
  type RolloutStatus,
} from '../rollouts/model.js';

export const STATUS_CONTEXT = 'gitops-sync';

/** Host-neutral phases; each host adapter names them its own way (GitLab: pending/running/success/failed). */
export const COMMIT_PHASES = ['pending', 'running', 'success', 'failure'] as const;
export type CommitPhase = (typeof COMMIT_PHASES)[number];

export interface PlannedStatus {
  readonly context: string;
  readonly phase: CommitPhase;
  /** One line: "48/50 synced, 1 blocked, 1 failed". */
  readonly description: string;
  readonly targetUrl?: string;
}

/** GitHub refuses descriptions over 140 characters; every host gets the same cut. */
const MAX_DESCRIPTION = 140;

export function phaseOf(status: RolloutStatus): CommitPhase {
  if (status === 'pending') return 'pending';
  if (status === 'in-progress') return 'running';
  return status === 'succeeded' ? 'success' : 'failure';
}

/** "48/50 synced, 1 blocked, 1 failed": synced out of all, then every other state with its count. */
export function summaryLine(states: readonly AppState[]): string {
  const counts = new Map<AppState, number>();
  for (const state of states) counts.set(state, (counts.get(state) ?? 0) + 1);
  const others = APP_STATES.filter((s) => s !== 'synced' && (counts.get(s) ?? 0) > 0).map(
    (s) => `${counts.get(s)} ${s}`,
  );
  const line = [`${counts.get('synced') ?? 0}/${states.length} synced`, ...others].join(', ');
  return line.length <= MAX_DESCRIPTION ? line : `${line.slice(0, MAX_DESCRIPTION - 1)}…`;
}

/**
 * What the commit should show for this rollout: one status for the whole fleet and, when asked, one per
 * cluster (`gitops-sync/<cluster>`). A rollout with no apps shows nothing (as in Slack).
 */
export function plannedStatuses(
  rollout: Rollout,
  options: { readonly perCluster: boolean; readonly pageUrl?: string },
): PlannedStatus[] {
  const states = [
    ...rollout.apps.map((a) => a.state),
    ...Object.keys(rollout.clusterErrors ?? {}).map((): AppState => 'error'),
  ];
  if (states.length === 0) return [];
  const link = options.pageUrl === undefined ? {} : { targetUrl: options.pageUrl };
  const statuses: PlannedStatus[] = [
    { context: STATUS_CONTEXT, phase: phaseOf(rollout.status), description: summaryLine(states), ...link },
  ];
  if (!options.perCluster) return statuses;
  const byCluster = new Map<string, AppState[]>();
  const add = (cluster: string, state: AppState) => {
    const list = byCluster.get(cluster);
    if (list === undefined) byCluster.set(cluster, [state]);
    else list.push(state);
  };
  for (const app of rollout.apps) add(app.cluster, app.state);
  for (const cluster of Object.keys(rollout.clusterErrors ?? {})) add(cluster, 'error');
  for (const [cluster, clusterStates] of [...byCluster].sort(([a], [b]) => a.localeCompare(b))) {
    statuses.push({
      context: `${STATUS_CONTEXT}/${cluster}`,
      phase: phaseOf(deriveRolloutStatus(clusterStates)),
      description: summaryLine(clusterStates),
      ...link,
    });
  }
  return statuses;
}
