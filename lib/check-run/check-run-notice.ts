import { createHash } from 'node:crypto';
import { phaseOf, statusRank } from '../commit-status/plan.js';
import { statusTarget } from '../commit-status/status-target.js';
import { errorMessage } from '../errors.js';
import { feedbackRepository } from '../feedback/repository.js';
import type { RepositoryConfig } from '../fleet/fleet-config.js';
import type { Logger, Metrics } from '../ports.js';
import type { RolloutReader } from '../rollouts/ports/rollout-reader.js';
import type { RolloutDigestReader } from '../rollouts/rollout-digest.js';
import type { RolloutSummary } from '../rollouts/rollout-model.js';
import { isTerminal } from '../rollouts/state-model.js';
import type { CheckRunApi } from './check-run-api.js';
import type { CheckRunRecord, CheckRunStore } from './check-run-store.js';
import { type CheckRunConclusion, type PlannedCheckRun, planCheckRun, reopened } from './plan.js';
import { CHECK_RUN_APPS_NAMED, endedOfDigest, planCheckRunOfDigest } from './plan-digest.js';

export interface CheckRunNoticeDeps {
  readonly rollouts: Pick<RolloutReader, 'get'>;
  /** With it, the check run is planned from the rollout's digest (bounded reads), not every app record. */
  readonly digests?: RolloutDigestReader;
  readonly repositories: readonly RepositoryConfig[];
  readonly store: CheckRunStore;
  readonly api: CheckRunApi;
  /** The rollout page of a commit, when a public URL is known (`details_url`). */
  readonly pageUrl: (sha: string) => string | undefined;
  readonly logger: Logger;
  /** `CheckRunFailed` per create or update GitHub did not take. */
  readonly metrics?: Pick<Metrics, 'count'>;
  /** How a caller that lost the create claim waits for the creator's id before updating (tests shorten it). */
  readonly waitForId?: { readonly attempts: number; readonly pollMs: number };
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * Shows the rollout as one GitHub check run per commit (`checkRun: true`): created once, then updated in
 * place only when what it shows changed. Never throws: GitHub down or the App misconfigured is a log line,
 * a metric and the error on the rollout's feedback, never a failed or delayed rollout.
 */
export function checkRunNotice(deps: CheckRunNoticeDeps) {
  const enabled = deps.repositories.filter((r) => r.checkRun === true);
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const wait = deps.waitForId ?? { attempts: 15, pollMs: 200 };

  async function creatorsId(sha: string): Promise<CheckRunRecord | undefined> {
    for (let i = 0; i < wait.attempts; i++) {
      await sleep(wait.pollMs);
      const record = await deps.store.read(sha);
      if (record?.id !== undefined) return record;
      if (record?.posted === undefined) return undefined; // the creator failed and let go
    }
    return undefined;
  }

  /** The digest (bounded, whatever the rollout's size) when a reader is given, else every app record. */
  async function readOf(sha: string) {
    if (deps.digests !== undefined) {
      const digest = await deps.digests.digest(sha, CHECK_RUN_APPS_NAMED);
      return digest === undefined ? undefined : { summary: digest.summary, digest };
    }
    const rollout = await deps.rollouts.get(sha);
    return rollout === undefined ? undefined : { summary: rollout, rollout };
  }

  return async (sha: string): Promise<void> => {
    if (enabled.length === 0) return;
    const log = deps.logger.child({ sha });
    try {
      const read = await readOf(sha);
      if (read === undefined) return;
      const rollout = read.summary;
      const repo = feedbackRepository(enabled, rollout);
      if (repo === undefined) return;
      const target = statusTarget(repo, rollout.repo);
      if (target?.host !== 'github') {
        log.warn('check run: not a GitHub repository', { repo: rollout.repo });
        return;
      }
      const pageUrl = deps.pageUrl(sha);
      const options = pageUrl === undefined ? {} : { pageUrl };
      const plan =
        read.digest !== undefined
          ? planCheckRunOfDigest(read.digest, options)
          : planCheckRun(read.rollout, options);
      if (plan === undefined) return;
      const posted = hashOf(plan);
      const ended =
        read.digest !== undefined
          ? endedOfDigest(read.digest)
          : read.rollout.apps.filter((a) => isTerminal(a.state)).length;
      const rank = rankOf(rollout, ended);
      const state = plan.conclusion ?? plan.status;
      const failed = async (step: string, error: unknown, claimed = posted) => {
        deps.metrics?.count('CheckRunFailed', 1, { step });
        await deps.store.release(sha, claimed, errorMessage(error));
        log.warn('check run not posted', { step, error: errorMessage(error) });
      };

      let record = await deps.store.read(sha);
      if (record?.id === undefined) {
        if (await deps.store.claimCreate(sha, posted, rank)) {
          let id: number;
          try {
            id = await deps.api.create(target, sha, plan);
          } catch (error) {
            await failed('create', error);
            return;
          }
          if (!(await deps.store.created(sha, id, posted, state)))
            log.warn('check run: another caller recorded its check run first', { checkRun: id });
          log.info('check run created', { checkRun: id, state });
          return;
        }
        record = await creatorsId(sha);
        if (record?.id === undefined) return; // the creator posts, or the next notice does
      }
      // GitHub keeps a completed check run completed: a view in progress again updates its output only.
      const view = plan.status === 'in_progress' && COMPLETED.has(record.state) ? reopened(plan) : plan;
      const viewPosted = view === plan ? posted : hashOf(view);
      if (record.posted === viewPosted) return;
      if (!(await deps.store.claimUpdate(sha, viewPosted, rank))) return;
      try {
        await deps.api.update(target, record.id, view);
      } catch (error) {
        await failed('update', error, viewPosted);
        return;
      }
      const shown = view.outputOnly === true ? record.state : state;
      await deps.store.confirm(sha, viewPosted, shown);
      log.info('check run updated', { checkRun: record.id, state: shown });
    } catch (error) {
      log.warn('check run failed', { error: errorMessage(error) });
    }
  };
}

const COMPLETED: ReadonlySet<string> = new Set<CheckRunConclusion>(['success', 'failure', 'cancelled']);

/** What the check run would show, hashed: an update is sent only when this changes. */
export function hashOf(plan: PlannedCheckRun): string {
  return createHash('sha256').update(JSON.stringify(plan)).digest('base64url').slice(0, 27);
}

/** Views of one rollout in order: actions and closed waves only grow, then the apps that ended. */
function rankOf(rollout: RolloutSummary, ended: number): number {
  return statusRank(rollout, phaseOf(rollout.status)) * 100_000 + Math.min(ended, 99_999);
}
