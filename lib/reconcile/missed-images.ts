import { mapWithConcurrency } from '../concurrency.js';
import { errorMessage } from '../errors.js';
import type { Clock, DeliveryStore, Logger, Queue } from '../ports.js';
import type { PushMessage } from '../queue/messages.js';
import { arnMatches, ecrRepositoryOf, type RepositoryImage } from '../registry/ecr-repository.js';
import { digestHex } from '../registry/registry-event.js';
import { enqueueOnce } from '../webhook/enqueue-once.js';
import { missedImageDelivery } from './missed-image-event.js';
import type { RegistryImages, RegistryReadFailure, RolloutExistence } from './ports.js';
import { planRegistryCatchUp, type RegistryCandidate, type RegistryMiss } from './registry-catch-up.js';
import type { RegistrySource } from './registry-sources.js';

export const MISSED_IMAGE_ACTIONS = [
  'waiting',
  'enqueued',
  'already-enqueued',
  'rollout-exists',
  'failed',
] as const;
export type MissedImageAction = (typeof MISSED_IMAGE_ACTIONS)[number];

export interface MissedImageReport {
  /** `host/path`. */
  readonly repository: string;
  readonly tag: string;
  readonly digest: string;
  /** Apps behind this image. */
  readonly apps: number;
  readonly why: string;
  /**
   * `waiting`: pushed within the grace period (its EventBridge event may still come); `enqueued`: sent as
   * the registry push; `already-enqueued`: that delivery was enqueued before (an earlier pass or the event);
   * `rollout-exists`: the digest has a rollout already (no second refresh).
   */
  readonly action: MissedImageAction;
  readonly error?: string;
}

export interface RegistryCatchUpReport {
  /** Repositories described this pass. */
  readonly described: number;
  /** Repositories not described: not found, access denied, out of time, failed (logged, counted). */
  readonly skipped: readonly {
    readonly repository: string;
    readonly reason: RegistryReadFailure;
    readonly error: string;
  }[];
  /** Repositories outside `ECR_REPOSITORY_ARNS` (never called: IAM would refuse). */
  readonly notConfigured: number;
  /** Repositories over `ECR_CATCH_UP_MAX_REPOSITORIES`, left to a later pass. */
  readonly deferred: number;
  /** Repositories with more images than the reader takes: the newest may have been missed. */
  readonly truncated: readonly string[];
  readonly images: readonly MissedImageReport[];
  /** Sources no tag follows, with the reason (a tag that is not a version against a constraint…). */
  readonly misses: readonly RegistryMiss[];
}

export interface MissedImageDeps {
  readonly images: RegistryImages;
  readonly rollouts: RolloutExistence;
  /** The webhook's delivery records: one image's pass and its EventBridge event are one delivery. */
  readonly deliveries: DeliveryStore;
  readonly pushQueue: Queue<PushMessage>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** An image pushed less than this ago is left to its event (as the Git catch-up's grace). */
  readonly graceMs: number;
  /** The pass's time budget (epoch ms): repositories not described by then wait for the next pass. */
  readonly deadline: number;
  readonly repositoryArns: readonly string[];
  readonly maxRepositories: number;
  readonly concurrency?: number;
}

/**
 * Reconcile's ECR catch-up (EventBridge delivery is best effort): each ECR repository the fleet's OCI and
 * Helm OCI sources use is described (up to `maxRepositories`, a different slice each pass when there are
 * more), every source judged (`planRegistryCatchUp`), and each (repository, digest, tag) apps are behind
 * that has no rollout is enqueued as the registry push its event would have been. Never throws.
 */
export async function catchUpImages(
  sources: readonly RegistrySource[],
  deps: MissedImageDeps,
): Promise<RegistryCatchUpReport> {
  const keys = [...new Set(sources.map((s) => s.imageKey))].sort();
  const allowed = keys.filter((key) => {
    const repository = ecrRepositoryOf(key);
    return repository !== undefined && deps.repositoryArns.some((p) => arnMatches(p, repository.arn));
  });
  const notConfigured = keys.length - allowed.length;
  if (notConfigured > 0)
    deps.logger.info('ecr repositories outside ECR_REPOSITORY_ARNS', { repositories: notConfigured });
  const start = allowed.length === 0 ? 0 : Math.floor(deps.clock.now().getTime() / 1000) % allowed.length;
  const rotated = [...allowed.slice(start), ...allowed.slice(0, start)];
  const taken = rotated.slice(0, deps.maxRepositories);
  const listings = new Map<string, readonly RepositoryImage[]>();
  const skipped: RegistryCatchUpReport['skipped'][number][] = [];
  const truncated: string[] = [];
  await mapWithConcurrency(taken, deps.concurrency ?? 4, async (key) => {
    const repository = ecrRepositoryOf(key);
    if (repository === undefined) return;
    const listing =
      deps.clock.now().getTime() >= deps.deadline
        ? ({ ok: false, reason: 'out-of-time', error: 'the pass ran out of time' } as const)
        : // The port never throws; should an adapter still, the repository is a skip like any other.
          await deps.images
            .describe(repository, deps.deadline)
            .catch(
              (error: unknown) => ({ ok: false, reason: 'failed', error: errorMessage(error) }) as const,
            );
    if (!listing.ok) {
      skipped.push({ repository: key, reason: listing.reason, error: listing.error });
      deps.logger.warn('ecr repository not described', {
        repository: key,
        reason: listing.reason,
        error: listing.error,
      });
      return;
    }
    if (listing.truncated) truncated.push(key);
    listings.set(key, listing.images);
  });
  const plan = planRegistryCatchUp(sources, (key) => listings.get(key));
  const settled = await mapWithConcurrency(plan.candidates, 4, (candidate) => enqueueMissed(candidate, deps));
  const images = settled.map((result, i): MissedImageReport => {
    const candidate = plan.candidates[i] as RegistryCandidate;
    if (result.status === 'fulfilled') return result.value;
    const error = errorMessage(result.reason);
    deps.logger.error('missed image push not enqueued', { repository: candidate.key, error });
    return { ...reportOf(candidate), action: 'failed', error };
  });
  return {
    described: listings.size,
    skipped: skipped.sort((a, b) => a.repository.localeCompare(b.repository)),
    notConfigured,
    deferred: allowed.length - taken.length,
    truncated: truncated.sort(),
    images,
    misses: plan.misses,
  };
}

function reportOf(candidate: RegistryCandidate): Omit<MissedImageReport, 'action'> {
  return {
    repository: `${candidate.image.host}/${candidate.image.repository}`,
    tag: candidate.image.tag,
    digest: candidate.image.digest,
    apps: candidate.apps.length,
    why: candidate.why,
  };
}

async function enqueueMissed(
  candidate: RegistryCandidate,
  deps: MissedImageDeps,
): Promise<MissedImageReport> {
  const report = reportOf(candidate);
  const now = deps.clock.now();
  if (candidate.pushedAt !== undefined && now.getTime() - candidate.pushedAt < deps.graceMs)
    return { ...report, action: 'waiting' };
  if (await deps.rollouts.exists(digestHex(candidate.image.digest)))
    return { ...report, action: 'rollout-exists' };
  const { record, message, deduplicationId } = missedImageDelivery(candidate.image, now);
  const log = deps.logger.child({ repo: report.repository, ref: report.tag, sha: record.sha });
  const outcome = await enqueueOnce(
    deps.deliveries,
    record,
    () => deps.pushQueue.send(message, { deduplicationId }),
    log,
  );
  if (outcome === 'duplicate') return { ...report, action: 'already-enqueued' };
  log.info('missed image push enqueued', { apps: candidate.apps.length, why: candidate.why });
  return { ...report, action: 'enqueued' };
}
