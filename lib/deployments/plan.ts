import { summaryLine } from '../commit-status/plan.js';
import type { ClusterConfig } from '../fleet/fleet-config.js';
import type { AppRecord } from '../rollouts/app-model.js';
import type { Rollout } from '../rollouts/rollout-model.js';
import { APP_STATES, type AppState, isTerminal, type StateCounts } from '../rollouts/state-model.js';

/**
 * Host-neutral phases of one deployment; each host names them its own way (GitHub `in_progress`, `success`,
 * `failure`, `error`, `inactive`; GitLab `running`, `success`, `failed`, `canceled`).
 */
export const DEPLOYMENT_PHASES = [
  'in_progress',
  'success',
  'failure',
  'error',
  'inactive',
  'aborted',
] as const;
export type DeploymentPhase = (typeof DEPLOYMENT_PHASES)[number];

/** One environment of one commit: the apps of every destination cluster that names it. */
export interface PlannedDeployment {
  /** The cluster's `environment` label, else its fleet name. */
  readonly environment: string;
  /** The destination clusters of its apps, sorted. */
  readonly clusters: readonly string[];
  readonly production: boolean;
  readonly phase: DeploymentPhase;
  /** One line: "3/4 synced, 1 failed". */
  readonly description: string;
  /** An app of it was refreshed at this commit: only then is its deployment created. */
  readonly refreshed: boolean;
  /** Orders views of the rollout for the status claim: operators' actions, then in progress before final. */
  readonly rank: number;
}

type ClusterLabels = Pick<ClusterConfig, 'name' | 'labels'>;

/** The environment a destination cluster deploys as: its `environment` label, else its fleet name. */
export function environmentOf(cluster: string, clusters: readonly ClusterLabels[]): string {
  return clusters.find((c) => c.name === cluster)?.labels?.environment ?? cluster;
}

/**
 * A production environment: the label `production: "true"`, else `tier: prod` (or `production`);
 * `production: "false"` wins over the tier.
 */
export function isProduction(cluster: string, clusters: readonly ClusterLabels[]): boolean {
  const labels = clusters.find((c) => c.name === cluster)?.labels ?? {};
  if (labels.production !== undefined) return labels.production === 'true';
  return labels.tier === 'prod' || labels.tier === 'production';
}

const RAN: ReadonlySet<AppState> = new Set([
  'refreshed',
  'syncing',
  'synced',
  'out-of-sync',
  'failed',
  'degraded',
  'timeout',
]);

/** Refreshed at this commit: a held, blocked or never-refreshed app deploys nothing. */
function wasRefreshed(app: AppRecord): boolean {
  return RAN.has(app.state) || app.refreshedAt !== undefined;
}

/** Operators' actions only grow: each outranks every phase of the views before it. */
const RANK_PER_ACTION = 1000;

/** The rank of the in-progress view this one belongs to: what a deployment created now starts at. */
export function inProgressRank(planned: Pick<PlannedDeployment, 'rank'>): number {
  return planned.rank - (planned.rank % RANK_PER_ACTION);
}

const ERRORED: ReadonlySet<AppState> = new Set(['error', 'timeout']);

/**
 * The phase of one environment's apps: in progress while any has not ended; once all ended, `inactive` when
 * every one was superseded by a later commit, `aborted` when every other was aborted, `success` when every
 * other synced, `error` when the rest only errored or timed out (the orchestrator could not tell), and
 * `failure` otherwise (failed, degraded, out-of-sync, blocked).
 */
export function deploymentPhase(states: readonly AppState[]): DeploymentPhase {
  if (states.some((s) => !isTerminal(s))) return 'in_progress';
  const counted = states.filter((s) => s !== 'superseded');
  if (counted.length === 0) return 'inactive';
  if (counted.every((s) => s === 'aborted')) return 'aborted';
  if (counted.every((s) => s === 'synced')) return 'success';
  if (counted.every((s) => s === 'synced' || ERRORED.has(s))) return 'error';
  return 'failure';
}

/**
 * One deployment per environment of the rollout's apps, sorted by environment; an app deploys to its
 * `destination`, else to the cluster holding it. `refreshed` says whether it may be created: once the first
 * app reached `refreshed`, `syncing` or later (a superseded app's record may have lost its `refreshedAt`, so
 * an environment is planned even then, to move a deployment that exists to `inactive`).
 */
export function plannedDeployments(
  rollout: Pick<Rollout, 'apps' | 'actions'>,
  clusters: readonly ClusterLabels[],
): PlannedDeployment[] {
  const groups = new Map<string, Group>();
  for (const app of rollout.apps) {
    const group = groupOf(groups, app.destination ?? app.cluster, clusters);
    group.states.push(app.state);
    if (wasRefreshed(app)) group.refreshed = true;
  }
  return planned(groups, rollout, clusters);
}

/**
 * The same from the apps per state of each destination cluster (the rollout digest's `destinations`):
 * O(clusters), whatever the rollout's size. An environment counts as refreshed when any of its apps is in a
 * state a refresh leads to (a superseded app's earlier refresh is not seen: its deployment would be
 * `inactive` anyway, which is never created).
 */
export function plannedDeploymentsOfCounts(
  rollout: Pick<Rollout, 'actions'>,
  destinations: Readonly<Record<string, StateCounts>>,
  clusters: readonly ClusterLabels[],
): PlannedDeployment[] {
  const groups = new Map<string, Group>();
  for (const [destination, counts] of Object.entries(destinations)) {
    const group = groupOf(groups, destination, clusters);
    for (const state of APP_STATES) {
      const n = counts[state] ?? 0;
      for (let i = 0; i < n; i++) group.states.push(state);
      if (n > 0 && RAN.has(state)) group.refreshed = true;
    }
  }
  return planned(groups, rollout, clusters);
}

interface Group {
  readonly destinations: Set<string>;
  readonly states: AppState[];
  refreshed: boolean;
}

function groupOf(groups: Map<string, Group>, destination: string, clusters: readonly ClusterLabels[]): Group {
  const environment = environmentOf(destination, clusters);
  let group = groups.get(environment);
  if (group === undefined) {
    group = { destinations: new Set(), states: [], refreshed: false };
    groups.set(environment, group);
  }
  group.destinations.add(destination);
  return group;
}

function planned(
  groups: ReadonlyMap<string, Group>,
  rollout: Pick<Rollout, 'actions'>,
  clusters: readonly ClusterLabels[],
): PlannedDeployment[] {
  const base = (rollout.actions?.length ?? 0) * RANK_PER_ACTION;
  return [...groups]
    .filter(([, group]) => group.states.length > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([environment, group]) => {
      const destinations = [...group.destinations].sort();
      const phase = deploymentPhase(group.states);
      return {
        environment,
        clusters: destinations,
        production: destinations.some((c) => isProduction(c, clusters)),
        phase,
        refreshed: group.refreshed,
        description: summaryLine(group.states),
        rank: base + (phase === 'in_progress' ? 0 : 1),
      };
    });
}
