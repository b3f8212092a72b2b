import { errorMessage } from '../errors.js';
import { feedbackRepository } from '../feedback/repository.js';
import type { ClusterConfig, RepositoryConfig } from '../fleet/fleet-config.js';
import type { GitCredentials } from '../git/credentials.js';
import type { Logger, Metrics } from '../ports.js';
import type { RolloutReader } from '../rollouts/ports/rollout-reader.js';
import type { RolloutDigestReader } from '../rollouts/rollout-digest.js';
import type { RolloutSummary } from '../rollouts/rollout-model.js';
import {
  createDeploymentRequest,
  createdState,
  type DeploymentTarget,
  deploymentIdOf,
  deploymentState,
  deploymentStatusRequest,
  deploymentTarget,
  type HostRequest,
} from './deployment-request.js';

import {
  inProgressRank,
  type PlannedDeployment,
  plannedDeployments,
  plannedDeploymentsOfCounts,
} from './plan.js';

/** What a status claim found: the deployment to move, none created yet, or nothing to post. */
export type StatusClaim = { readonly deploymentId: string } | 'not-created' | 'unchanged';

/**
 * The deployment of each environment of a commit and what it shows on the host (lib/store/deployments.ts):
 * a create claim so two callers never create two deployments, and a status claim so a state is posted once
 * and an older view (lower rank) never replaces a later one. A failed call keeps the host's error.
 */
export interface DeploymentLedger {
  /** A claim token when this caller may create the environment's deployment (none exists, none is being made). */
  claimCreate(sha: string, environment: string, host: string): Promise<string | undefined>;
  settleCreate(
    sha: string,
    environment: string,
    claim: string,
    outcome:
      | { readonly deploymentId: string; readonly state: string; readonly rank: number }
      | { readonly error: string },
  ): Promise<void>;
  claimStatus(sha: string, environment: string, state: string, rank: number): Promise<StatusClaim>;
  /** After the post: what the host shows now, or the claim released with the host's error. */
  settleStatus(sha: string, environment: string, state: string, error?: string): Promise<void>;
}

export interface DeploymentDeps {
  readonly rollouts: Pick<RolloutReader, 'get'>;
  /** With it, the deployments are planned from the rollout digest's per-destination counts (one read). */
  readonly digests?: RolloutDigestReader;
  readonly repositories: readonly RepositoryConfig[];
  /** The fleet's clusters, for their `environment`, `production` and `tier` labels. */
  readonly clusters: readonly Pick<ClusterConfig, 'name' | 'labels'>[];
  /** The token for the repository's host: its `tokenSecret` today; a GitHub App installation token can plug in here. */
  readonly credentials: (repo: RepositoryConfig) => Promise<GitCredentials | undefined>;
  readonly ledger: DeploymentLedger;
  /** One bounded, retried host call (lib/deployments/host-call.ts); its JSON answer. */
  readonly call: (request: HostRequest) => Promise<unknown>;
  /** The rollout page of a commit, when a public URL is known. */
  readonly pageUrl: (sha: string) => string | undefined;
  readonly logger: Logger;
  /** `DeploymentFailed` (dimension `host`) per call the host did not take. */
  readonly metrics?: Pick<Metrics, 'count'>;
}

interface Pass {
  readonly sha: string;
  readonly target: DeploymentTarget;
  readonly credentials: GitCredentials;
  readonly deps: DeploymentDeps;
}

/**
 * Creates a deployment per environment of a commit when the repository asks for them (`deployments: true`)
 * and moves each as its apps move, posting only what changed. Never throws: a host outage or a bad token is
 * a log line and an error kept on the rollout, not a failed rollout.
 */
export function deploymentNotice(deps: DeploymentDeps) {
  const enabled = deps.repositories.filter((r) => r.deployments === true);
  /** The rollout and its planned deployments: from the digest (no app read) when a reader is given. */
  async function readOf(sha: string, reread = false): Promise<View | undefined> {
    if (deps.digests !== undefined) {
      const digest = await deps.digests.digest(sha, 0, { reread });
      if (digest === undefined) return undefined;
      const planned = plannedDeploymentsOfCounts(digest.summary, digest.destinations, deps.clusters);
      return { rollout: digest.summary, planned };
    }
    const rollout = await deps.rollouts.get(sha);
    return rollout === undefined
      ? undefined
      : { rollout, planned: plannedDeployments(rollout, deps.clusters) };
  }
  return async (sha: string): Promise<void> => {
    if (enabled.length === 0) return;
    try {
      const view = await readOf(sha);
      if (view === undefined) return;
      const { rollout } = view;
      const repo = feedbackRepository(enabled, rollout);
      if (repo === undefined) return;
      const target = deploymentTarget(repo, rollout.repo);
      if (target === undefined) {
        deps.logger.warn('deployment: no deployments API for this repository', { sha, repo: rollout.repo });
        return;
      }
      if (view.planned.length === 0) return;
      const credentials = await deps.credentials(repo);
      if (credentials === undefined) {
        deps.logger.warn('deployment: the repository has no token', { sha, repo: rollout.repo });
        return;
      }
      const pass = { sha, target, credentials, deps };
      if (!(await movePlanned(pass, view, true))) return;
      // Callers that found the creation claimed left their view to this one: read the rollout again.
      const again = await readOf(sha, true);
      if (again !== undefined) await movePlanned(pass, again, false);
    } catch (error) {
      deps.logger.warn('deployment failed', { sha, error: errorMessage(error) });
    }
  };
}

/** A rollout as one pass sees it: its summary and the deployments its apps make. */
interface View {
  readonly rollout: RolloutSummary;
  readonly planned: readonly PlannedDeployment[];
}

/** Moves every planned deployment; true when this pass created one. */
async function movePlanned(
  pass: Pass,
  { rollout, planned: all }: View,
  mayCreate: boolean,
): Promise<boolean> {
  let created = false;
  for (const planned of all) {
    const state = deploymentState(pass.target.host, planned.phase);
    // GitLab moves a deployment to `running` only as it is created: a retried app's one waits for its end.
    const createOnly = pass.target.host === 'gitlab' && state === createdState('gitlab');
    try {
      if (!createOnly) {
        const claim = await pass.deps.ledger.claimStatus(pass.sha, planned.environment, state, planned.rank);
        if (claim === 'unchanged') continue;
        if (claim !== 'not-created') {
          await postStatus(pass, planned, claim.deploymentId);
          continue;
        }
      }
      // Created once an app was refreshed, never for apps superseded before it was.
      if (!mayCreate || !planned.refreshed || planned.phase === 'inactive') continue;
      created = (await create(pass, rollout, planned)) || created;
    } catch (error) {
      pass.deps.logger.warn('deployment failed', {
        sha: pass.sha,
        environment: planned.environment,
        error: errorMessage(error),
      });
    }
  }
  return created;
}

async function create(pass: Pass, rollout: RolloutSummary, planned: PlannedDeployment): Promise<boolean> {
  const { deps, sha, target } = pass;
  const claim = await deps.ledger.claimCreate(sha, planned.environment, target.host);
  if (claim === undefined) return false;
  let deploymentId: string | undefined;
  try {
    const answer = await deps.call(
      createDeploymentRequest(target, { sha, ref: rollout.ref }, planned, pass.credentials),
    );
    deploymentId = deploymentIdOf(answer);
    if (deploymentId === undefined) throw new Error('the host answered without a deployment id');
  } catch (error) {
    failed(pass, planned, 'deployment not created', error);
    await deps.ledger.settleCreate(sha, planned.environment, claim, { error: errorMessage(error) });
    return false;
  }
  // What the new deployment shows, ranked below every view of this rollout's operators' actions so far.
  const state = createdState(target.host);
  await deps.ledger.settleCreate(sha, planned.environment, claim, {
    deploymentId,
    state,
    rank: inProgressRank(planned),
  });
  deps.logger.info('deployment created', { sha, environment: planned.environment, deploymentId });
  return true;
}

async function postStatus(pass: Pass, planned: PlannedDeployment, deploymentId: string): Promise<void> {
  const { deps, sha, target } = pass;
  const state = deploymentState(target.host, planned.phase);
  const request = deploymentStatusRequest(target, deploymentId, planned, pass.credentials, deps.pageUrl(sha));
  try {
    await deps.call(request);
  } catch (error) {
    failed(pass, planned, 'deployment status not posted', error);
    await deps.ledger.settleStatus(sha, planned.environment, state, errorMessage(error));
    return;
  }
  await deps.ledger.settleStatus(sha, planned.environment, state);
  deps.logger.info('deployment status posted', { sha, environment: planned.environment, state });
}

function failed(pass: Pass, planned: PlannedDeployment, message: string, error: unknown): void {
  pass.deps.metrics?.count('DeploymentFailed', 1, { host: pass.target.host });
  pass.deps.logger.warn(message, {
    sha: pass.sha,
    environment: planned.environment,
    error: errorMessage(error),
  });
}
