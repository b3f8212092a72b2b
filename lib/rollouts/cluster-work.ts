import { pinOwnersIn } from '../argocd/pin-owners.js';
import { withDeadline } from '../concurrency.js';
import { errorMessage } from '../errors.js';
import type { FleetCluster } from '../fleet/gateway.js';
import type { FleetObject, ObjectMatch } from '../matching/match-index.js';
import { ociSourceKey } from '../matching/oci-source.js';
import { canonicalRepoKey } from '../matching/repo-url.js';
import type { Logger } from '../ports.js';
import type { ClusterWorkMessage } from '../queue/messages.js';
import { ROLLOUT_DEADLINE_PASSED, rolloutDeadlinePassed } from './app-budget.js';
import type { DecisionRecord, StoredApp } from './app-model.js';
import { noteUngated, retryOrFail, startTracking, targetKey } from './cluster-work-end.js';
import { type EarlyReads, listUnderLease, readEarly } from './early-reads.js';
import type { HeldLease } from './ports/cluster-leases.js';
import type { NewAppRecords, RolloutMeta } from './ports/rollout-writer.js';
import { refreshCluster } from './refresh-apps.js';
import type { RolloutSummary } from './rollout-model.js';
import { underLease } from './under-lease.js';
import type { AppOutcome, ClusterWorkDeps } from './work-model.js';

export type { ClusterWorkDeps } from './work-model.js';

export interface ClusterWorkResult {
  readonly cluster: string;
  readonly matched: number;
  readonly refreshed: number;
  readonly retrying: number;
  readonly status?: RolloutSummary['status'];
}

/**
 * One push on one cluster: list it (every page), match, decide each app from its live state, preflight,
 * claim, patch and record as each app completes. What it could not finish (the cluster unreadable, PATCH
 * failures, out of time) comes back as a delayed work item for this cluster only, a bounded number of times.
 */
export async function runClusterWork(
  message: ClusterWorkMessage,
  deps: ClusterWorkDeps,
  budget: { readonly deadlineMs: number },
): Promise<ClusterWorkResult> {
  // The work items of one SQS batch (processed side by side) write their views of a rollout's summary in
  // one update: this one may write its view until it returns (view-gather.ts).
  const leave = deps.rollouts.expectView?.(message.event.after, message.cluster);
  try {
    return await workOnCluster(message, deps, budget);
  } finally {
    leave?.();
  }
}

async function workOnCluster(
  message: ClusterWorkMessage,
  deps: ClusterWorkDeps,
  budget: { readonly deadlineMs: number },
): Promise<ClusterWorkResult> {
  const { event } = message;
  const sha = event.after;
  const log = deps.logger.child({
    delivery: event.deliveryId,
    repo: event.repo.fullName,
    sha,
    cluster: message.cluster,
    attempt: message.attempt,
  });
  const meta: RolloutMeta = {
    sha,
    repo: event.repo.fullName,
    ref: event.ref,
    trigger: message.trigger,
    receivedAt: event.receivedAt,
  };
  const empty = { cluster: message.cluster, matched: 0, refreshed: 0, retrying: 0 };
  const cluster = deps.fleet.cluster(message.cluster);
  if (cluster === undefined) {
    log.error('cluster not in the fleet file');
    await deps.rollouts.recordCluster(sha, message.cluster, 'failed', 'the cluster is not in the fleet file');
    await deps.rollouts.syncSummary(sha, message.cluster);
    return empty;
  }
  const early = deps.leases === undefined ? undefined : readEarly(cluster, message, deps);
  // After the early reads are sent: it matches the push against the last listing first. Not for a rollout
  // past its deadline (nothing is patched, nothing preflighted).
  if (!rolloutDeadlinePassed(message)) deps.warmCommit?.(cluster.name, event);
  if (deps.leases === undefined) return workOn(cluster, message, deps, budget, { meta, log });
  // Held a little past this invocation's budget: the holder cannot outlive its invocation.
  const untilMs = budget.deadlineMs + LEASE_MARGIN_MS;
  const lease = await underLease(
    deps.leases,
    { sha, cluster: cluster.name, who: `${event.deliveryId}#${message.attempt}`, untilMs },
    (held) =>
      workOn(cluster, message, deps, budget, {
        meta,
        log,
        held,
        fresh: deps.newApps?.(meta, { untilMs }),
        ...(early === undefined ? {} : { early }),
      }),
  );
  if (!lease.held) {
    // Another work item (or a track poll's batch) of this commit is on this cluster now: look again once its
    // lease is over, or in 15 s (a holder usually releases long before its lease ends), without using up an
    // attempt, and see what it recorded.
    const delaySeconds = Math.min(15, Math.max(1, Math.ceil((lease.untilMs - Date.now()) / 1000) + 1));
    await deps.queue.send(message, { delaySeconds });
    log.info('cluster busy: work item deferred', { delaySeconds });
    return empty;
  }
  return lease.value;
}

const LEASE_MARGIN_MS = 15_000;

async function workOn(
  cluster: FleetCluster,
  message: ClusterWorkMessage,
  deps: ClusterWorkDeps,
  budget: { readonly deadlineMs: number },
  scope: {
    meta: RolloutMeta;
    log: Logger;
    held?: HeldLease;
    fresh?: NewAppRecords | undefined;
    early?: EarlyReads;
  },
): Promise<ClusterWorkResult> {
  const { event } = message;
  const sha = event.after;
  const { meta, log, held, fresh, early } = scope;
  const empty = { cluster: message.cluster, matched: 0, refreshed: 0, retrying: 0 };
  let only = message.apps === undefined ? undefined : new Set(message.apps.map(targetKey));
  // The first holder of the commit's lease on the cluster: nothing of the commit is recorded there yet
  // (records and decisions are written by holders only), so neither is read.
  const first = held?.first === true;
  let records: readonly StoredApp[] | undefined = first ? [] : undefined;
  if (message.release === true) {
    // A release looks at the apps this rollout holds on the cluster, nothing else (and its refresh uses
    // the records read here instead of reading them again).
    records ??= await deps.rollouts.listApps(sha, cluster.name);
    const holding = records.filter((a) => a.state === 'held');
    if (holding.length === 0) return empty;
    only = new Set(holding.map(targetKey));
  }
  const rolloutDeadlineMs = message.deadline === undefined ? undefined : Date.parse(message.deadline);
  if (rolloutDeadlinePassed(message)) {
    // A retry (or a late delivery) of a rollout that has ended by its deadline: nothing is patched now.
    log.warn('rollout deadline passed: cluster work dropped');
    await deps.rollouts.recordCluster(
      sha,
      cluster.name,
      'failed',
      `${ROLLOUT_DEADLINE_PASSED} (attempt ${message.attempt + 1})`,
    );
    await deps.rollouts.syncSummary(sha, cluster.name);
    return empty;
  }
  const holds = await (early?.holds ?? deps.holdContext?.(sha, cluster.name));
  let objects: FleetObject[];
  try {
    objects = await withDeadline(
      listUnderLease(cluster, early, first),
      budget.deadlineMs,
      `listing ${cluster.name}`,
    );
  } catch (error) {
    const reason = `cannot list objects: ${errorMessage(error)}`;
    log.warn('cluster unreadable', { error: reason });
    await retryOrFail(message, reason, message.apps, deps, log);
    await deps.rollouts.syncSummary(sha, cluster.name);
    await deps.notify(sha);
    return { ...empty, retrying: message.apps?.length ?? 1 };
  }

  const { matches, failures } = deps.matchIndex(cluster.name, objects).match(event, event.changedFiles);
  const decisions: DecisionRecord[] = [];
  if (only === undefined) {
    for (const f of failures) {
      decisions.push({
        cluster: f.cluster,
        kind: f.kind,
        namespace: f.namespace ?? '',
        name: f.name ?? '',
        decision: 'error',
        detail: f.reason,
      });
    }
  }
  const inScope = matches
    .filter((m) => only === undefined || only.has(targetKey(m.target)))
    .map((m) => (followUp(message) ? asFollowUp(m) : m));
  // A registry push's repository is its image's (`host/path`): what a freeze of `oci://host/path` names.
  const repoKey = canonicalRepoKey(event.repo.webUrl) ?? ociSourceKey(event.repo.webUrl, undefined);
  const { outcomes, recordsRead } = await refreshCluster(inScope, {
    cluster,
    meta,
    message,
    deps,
    deadlineMs: budget.deadlineMs,
    ...(rolloutDeadlineMs === undefined || Number.isNaN(rolloutDeadlineMs) ? {} : { rolloutDeadlineMs }),
    log,
    ...(fresh === undefined ? {} : { fresh }),
    ...(holds === undefined ? {} : { holds }),
    ...((deps.pinnedRepos?.length ?? 0) > 0 ? { owners: pinOwnersIn(objects) } : {}),
    ...(repoKey === undefined ? {} : { repoKey }),
    ...(records === undefined ? {} : { records }),
  });
  decisions.push(...outcomes.map((o) => ({ ...o.target, decision: o.decision, detail: o.detail })));
  const batch = `${cluster.name}#${event.receivedAt}#${event.deliveryId}#${String(message.attempt).padStart(3, '0')}`;
  // The apps' last new records and the decisions in one batch (the records first: budget or not).
  // Its counts go with the cluster's progress below (one summary update).
  const retry = outcomes.filter((o) => o.retry !== undefined);
  const decided = await deps.rollouts.recordDecisions(sha, batch, decisions, {
    pending: fresh,
    withProgress: true,
    ...(first ? { onlyBatch: true } : {}),
    // Nothing after this batch writes under the lease (the chain claim, the summary and the notices guard
    // themselves) unless apps are to be retried: then it is released in the batch's last request.
    ...(retry.length === 0 && held !== undefined ? { lease: held } : {}),
  });
  // A release or an operator's retry refreshes apps after the rollout may have passed its deadline: give them one.
  if ((message.release === true || message.retry === true) && outcomes.some((o) => o.patched))
    await deps.restartDeadline?.(sha);
  await noteUngated(cluster.name, sha, outcomes, repoKey, deps, log);

  if (retry.length > 0) {
    const reason = retry.find((o) => o.retry === 'failed')?.detail ?? 'out of time';
    await retryOrFail(
      message,
      reason,
      retry.map((o) => o.target),
      deps,
      log,
      // Cut short by time after real progress: continue at once without using up an attempt.
      retry.every((o) => o.retry === 'deferred') && outcomes.some((o) => o.retry === undefined),
      decided,
    );
  }
  if (outcomes.some((o) => o.track)) await startTracking(cluster.name, sha, deps, held?.holder);
  // Every record of the cluster is one this work item created (it found none, and only the lease holder
  // creates them): the view is what it wrote, not read again. Otherwise (records found, a retry or a failure
  // path, a put that found an item) the view is read.
  const written = recordsRead === 0 && retry.length === 0 ? fresh?.viewed() : undefined;
  // Done: the cluster's progress and decision counts ride in the view's write (one summary update, and no
  // moment where the cluster reads done without its view).
  const done =
    retry.length > 0
      ? undefined
      : {
          ...(decided === undefined ? {} : { decisions: decided.counts }),
          record: () => deps.rollouts.recordCluster(sha, cluster.name, 'done', undefined, decided),
        };
  const summary = await deps.rollouts.syncSummary(sha, cluster.name, written, done);
  await deps.gate?.(sha, summary);
  if (inScope.length > 0) await deps.notify(sha);
  const result = {
    cluster: cluster.name,
    matched: inScope.length,
    refreshed: outcomes.filter((o) => o.patched).length,
    retrying: retry.length,
    ...(summary === undefined ? {} : { status: summary.status }),
  };
  log.info('cluster work done', { ...result, decisions: decisions.length });
  return result;
}

/** A release or retry matches the apps of a push again with no file list: they matched it, not every file. */
const followUp = (message: ClusterWorkMessage) => message.release === true || message.retry === true;

function asFollowUp(match: ObjectMatch): ObjectMatch {
  if (match.decision !== 'refreshed-unknown-files') return match;
  return {
    ...match,
    decision: 'refreshed',
    reason: 'matched by the push; refreshed as release control let it go',
  };
}

export type { AppOutcome };
