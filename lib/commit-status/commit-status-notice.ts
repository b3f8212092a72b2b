import { errorMessage } from '../errors.js';
import { feedbackRepository } from '../feedback/repository.js';
import type { RepositoryConfig } from '../fleet/fleet-config.js';
import type { GitCredentials } from '../git/credentials.js';
import type { Logger, Metrics } from '../ports.js';
import type { RolloutReader } from '../rollouts/ports/rollout-reader.js';
import type { RolloutDigestReader } from '../rollouts/rollout-digest.js';
import { hostState, type StatusRequest, statusRequest } from './host-request.js';
import { type PlannedStatus, plannedStatuses, statusRank } from './plan.js';
import { statusTarget } from './status-target.js';

/** Remembers what each context shows on the host (see lib/store/commit-statuses.ts). */
export interface PostedStatuses {
  /** True when this caller may post `posted` (it differs from what is there and is not older). */
  claim(sha: string, context: string, posted: string, rank: number): Promise<boolean>;
  /** Forgets a claim whose post failed, so the next notice tries again, keeping the host's `error` if given. */
  release(sha: string, context: string, posted: string, error?: string): Promise<void>;
}

export interface CommitStatusDeps {
  readonly rollouts: Pick<RolloutReader, 'get'>;
  /** With it, the statuses are counted from the summary's views (one read), not from every app record. */
  readonly digests?: RolloutDigestReader;
  readonly repositories: readonly RepositoryConfig[];
  readonly credentials: (repo: RepositoryConfig) => Promise<GitCredentials | undefined>;
  readonly posted: PostedStatuses;
  readonly post: (request: StatusRequest) => Promise<void>;
  /** The rollout page of a commit, when a public URL is known. */
  readonly pageUrl: (sha: string) => string | undefined;
  readonly logger: Logger;
  /** `CommitStatusFailed` (dimension `host`) per status the host did not take. */
  readonly metrics?: Pick<Metrics, 'count'>;
}

/**
 * Posts the commit's statuses to its Git host when the repository asks for them (`commitStatus: true`),
 * only what changed. Never throws: a host outage or a bad token is a log line, not a failed rollout.
 */
export function commitStatusNotice(deps: CommitStatusDeps) {
  const enabled = deps.repositories.filter((r) => r.commitStatus === true);
  return async (sha: string): Promise<void> => {
    if (enabled.length === 0) return;
    try {
      const digest = deps.digests === undefined ? undefined : await deps.digests.digest(sha, 0);
      const rollout =
        digest?.summary ?? (deps.digests === undefined ? await deps.rollouts.get(sha) : undefined);
      if (rollout === undefined) return;
      const repo = feedbackRepository(enabled, rollout);
      if (repo === undefined) return;
      const target = statusTarget(repo, rollout.repo);
      if (target === undefined) {
        deps.logger.warn('commit status: no status API for this repository', { sha, repo: rollout.repo });
        return;
      }
      const pageUrl = deps.pageUrl(sha);
      const statuses = plannedStatuses(rollout, {
        perCluster: repo.commitStatusPerCluster === true,
        ...(digest === undefined ? {} : { counts: digest.clusters }),
        ...(pageUrl === undefined ? {} : { pageUrl }),
      });
      if (statuses.length === 0) return;
      const credentials = await deps.credentials(repo);
      if (credentials === undefined) {
        deps.logger.warn('commit status: the repository has no token', { sha, repo: rollout.repo });
        return;
      }
      for (const status of statuses) {
        // GitLab refuses a transition to the state a status already has: there only the state counts.
        const posted = target.host === 'gitlab' ? hostState('gitlab', status.phase) : postedKey(status);
        if (!(await deps.posted.claim(sha, status.context, posted, statusRank(rollout, status.phase))))
          continue;
        try {
          await deps.post(statusRequest(target, sha, status, credentials, rollout.commitUrl ?? repo.url));
          deps.logger.info('commit status posted', { sha, context: status.context, state: status.phase });
        } catch (error) {
          deps.metrics?.count('CommitStatusFailed', 1, { host: target.host });
          await deps.posted.release(sha, status.context, posted, errorMessage(error));
          deps.logger.warn('commit status not posted', {
            sha,
            context: status.context,
            error: errorMessage(error),
          });
        }
      }
    } catch (error) {
      deps.logger.warn('commit status failed', { sha, error: errorMessage(error) });
    }
  };
}

function postedKey(status: PlannedStatus): string {
  return `${status.phase}|${status.description}|${status.targetUrl ?? ''}`;
}
