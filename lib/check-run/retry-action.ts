import type { RepositoryConfig } from '../fleet/fleet-config.js';
import { canonicalRepoKey, canonicalRepoKeys } from '../matching/repo-url.js';
import type { ReleaseControl } from '../release/ports.js';
import type { RequestedAction } from '../webhook/github-check-run.js';
import type { ActionOutcome } from '../webhook/handle-webhook.js';

export interface CheckRunActionDeps {
  readonly control: Pick<ReleaseControl, 'retry'>;
  /** The fleet's repositories, read when a button is pressed (a fleet that cannot be read is a 503). */
  readonly repositories: () => Promise<readonly RepositoryConfig[]>;
}

/**
 * The "Retry failed" button of a check run: retries the commit's failed apps exactly as
 * `POST /rollouts/{sha}/retry` does, for a repository the fleet lists with `checkRun: true` only.
 */
export function checkRunActions(deps: CheckRunActionDeps) {
  return async (action: RequestedAction): Promise<ActionOutcome> => {
    const keys = canonicalRepoKeys(action.repo.urls);
    const repositories = await deps.repositories();
    const listed = repositories.some((r) => {
      const key = canonicalRepoKey(r.url);
      return r.checkRun === true && key !== undefined && keys.has(key);
    });
    if (!listed) return { kind: 'ignored', reason: 'the fleet has no checkRun repository by that name' };
    const outcome = await deps.control.retry(action.sha, action.by);
    if (outcome.kind === 'ok')
      return { kind: 'done', ...(outcome.detail === undefined ? {} : { detail: outcome.detail }) };
    return {
      kind: 'ignored',
      reason: outcome.kind === 'not-found' ? 'no rollout for this commit' : outcome.error,
    };
  };
}
