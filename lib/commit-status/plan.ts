import type {
  OperatorAction,
  OperatorActionName,
  Rollout,
  RolloutSummary,
} from '../rollouts/rollout-model.js';
import {
  APP_STATES,
  type AppState,
  deriveRolloutStatus,
  type RolloutStatus,
  type StateCounts,
} from '../rollouts/state-model.js';

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

/** A paused rollout waits (`pending`); a halted or aborted one needs a person (`failure`). */
export function phaseOf(status: RolloutStatus): CommitPhase {
  if (status === 'pending' || status === 'paused') return 'pending';
  if (status === 'in-progress') return 'running';
  return status === 'succeeded' ? 'success' : 'failure';
}

/**
 * What holds or stopped the rollout, as the head of its description: `halted at wave prod-eu: …`,
 * `paused by ops/alice`, `aborted by token`, or `wave prod-eu waits for canary` while a later wave is held.
 */
export function controlLine(rollout: RolloutSummary): string | undefined {
  const waves = rollout.waves ?? [];
  if (rollout.status === 'halted') {
    const wave = waves.find((w) => w.state === 'halted');
    const why = wave?.reason ?? lastAction(rollout, 'halt')?.detail;
    return `halted${wave === undefined ? '' : ` at wave ${wave.name}`}${why === undefined ? '' : `: ${why}`}`;
  }
  if (rollout.status === 'paused' || rollout.status === 'aborted') {
    const action = lastAction(rollout, rollout.status === 'paused' ? 'pause' : 'abort');
    return `${rollout.status}${action === undefined ? '' : ` by ${principal(action.by)}`}`;
  }
  if (rollout.status !== 'pending' && rollout.status !== 'in-progress') return undefined;
  const waiting = waves.find((w) => w.state === 'waiting');
  if (waiting === undefined) return undefined;
  const open = [...waves.slice(0, waves.indexOf(waiting))].reverse().find((w) => w.state !== 'superseded');
  return `wave ${waiting.name} waits${open === undefined ? '' : ` for ${open.name}`}`;
}

/** A cluster's held apps: `pending` while they wait (a wave, a pause), the rollout's own phase once stopped. */
function heldPhase(rollout: RolloutSummary): CommitPhase {
  return rollout.status === 'halted' || rollout.status === 'aborted' ? phaseOf(rollout.status) : 'pending';
}

/** The commit waits while a later wave is held: `pending`, not `running`, until the last wave opens. */
function rolloutPhase(rollout: RolloutSummary): CommitPhase {
  const phase = phaseOf(rollout.status);
  const held = phase === 'running' && (rollout.waves ?? []).some((w) => w.state === 'waiting');
  return held ? 'pending' : phase;
}

/**
 * Orders the views of one rollout for the posted-status claim: operators' actions and closed waves only
 * grow, so a resume after a halt, or the pending of a pause after running, outranks what was posted before.
 */
export function statusRank(rollout: RolloutSummary, phase: CommitPhase): number {
  const closed = (rollout.waves ?? []).filter((w) => w.state === 'done').length;
  const phaseRank = phase === 'pending' ? 0 : phase === 'running' ? 1 : 2;
  return (rollout.actions?.length ?? 0) * 1000 + closed * 3 + phaseRank;
}

function lastAction(rollout: RolloutSummary, name: OperatorActionName): OperatorAction | undefined {
  return [...(rollout.actions ?? [])].reverse().find((a) => a.action === name);
}

/** An IAM principal ARN by its last part (`assumed-role/ops/alice` → `ops/alice`). */
function principal(by: string): string {
  if (!by.startsWith('arn:')) return by;
  return by.slice(by.lastIndexOf(':') + 1).replace(/^(assumed-role|user|role)\//, '') || by;
}

function withControl(control: string | undefined, summary: string): string {
  const line = control === undefined ? summary : `${control} · ${summary}`;
  return line.length <= MAX_DESCRIPTION ? line : `${line.slice(0, MAX_DESCRIPTION - 1)}…`;
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
  rollout: Omit<Rollout, 'apps'> & Partial<Pick<Rollout, 'apps'>>,
  options: {
    readonly perCluster: boolean;
    readonly pageUrl?: string;
    /** Apps per state per cluster (the summary's views), instead of `rollout.apps`. */
    readonly counts?: Readonly<Record<string, StateCounts>>;
  },
): PlannedStatus[] {
  const byCluster = new Map<string, AppState[]>();
  const add = (cluster: string, state: AppState, n = 1) => {
    const list = byCluster.get(cluster) ?? [];
    byCluster.set(cluster, list);
    for (let i = 0; i < n; i++) list.push(state);
  };
  if (options.counts !== undefined) {
    for (const [cluster, counts] of Object.entries(options.counts))
      for (const [state, n] of Object.entries(counts)) add(cluster, state as AppState, n ?? 0);
  } else for (const app of rollout.apps ?? []) add(app.cluster, app.state);
  const states = [...byCluster.values()].flat();
  for (const _ of Object.keys(rollout.clusterErrors ?? {})) states.push('error');
  if (states.length === 0) return [];
  const link = options.pageUrl === undefined ? {} : { targetUrl: options.pageUrl };
  const statuses: PlannedStatus[] = [
    {
      context: STATUS_CONTEXT,
      phase: rolloutPhase(rollout),
      description: withControl(controlLine(rollout), summaryLine(states)),
      ...link,
    },
  ];
  if (!options.perCluster) return statuses;
  for (const cluster of Object.keys(rollout.clusterErrors ?? {})) add(cluster, 'error');
  const control = controlLine(rollout);
  for (const [cluster, clusterStates] of [...byCluster].sort(([a], [b]) => a.localeCompare(b))) {
    // A cluster holding apps waits on what holds the rollout (a wave, a pause, a halt): it says so as the
    // overall status does, and takes the rollout's phase (a halted rollout's held apps need a person).
    const held = control !== undefined && clusterStates.includes('held');
    statuses.push({
      context: `${STATUS_CONTEXT}/${cluster}`,
      phase: held ? heldPhase(rollout) : phaseOf(deriveRolloutStatus(clusterStates)),
      description: held ? withControl(control, summaryLine(clusterStates)) : summaryLine(clusterStates),
      ...link,
    });
  }
  return statuses;
}
