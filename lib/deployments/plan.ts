import { summaryLine } from '../commit-status/plan.js';
import type { ClusterConfig } from '../fleet/fleet-config.js';
import type { AppRecord } from '../rollouts/app-model.js';
import type { Rollout } from '../rollouts/rollout-model.js';
import { type AppState, isTerminal } from '../rollouts/state-model.js';

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
  const byEnvironment = new Map<string, AppRecord[]>();
  for (const app of rollout.apps) {
    const environment = environmentOf(app.destination ?? app.cluster, clusters);
    const list = byEnvironment.get(environment);
    if (list === undefined) byEnvironment.set(environment, [app]);
    else list.push(app);
  }
  const base = (rollout.actions?.length ?? 0) * RANK_PER_ACTION;
  return [...byEnvironment]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([environment, apps]) => {
      const destinations = [...new Set(apps.map((a) => a.destination ?? a.cluster))].sort();
      const states = apps.map((a) => a.state);
      const phase = deploymentPhase(states);
      return {
        environment,
        clusters: destinations,
        production: destinations.some((c) => isProduction(c, clusters)),
        phase,
        refreshed: apps.some(wasRefreshed),
        description: summaryLine(states),
        rank: base + (phase === 'in_progress' ? 0 : 1),
      };
    });
}
