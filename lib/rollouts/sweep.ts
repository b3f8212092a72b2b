import { mapWithConcurrency } from '../concurrency.js';
import type { Clock, Logger, Queue } from '../ports.js';
import type { TrackMessage } from '../queue/messages.js';
import type { StoredApp } from './app-model.js';
import type { AppStateWriter } from './ports/app-state.js';
import type { ClusterLeases } from './ports/cluster-leases.js';
import type { ClusterProgressWriter } from './ports/cluster-progress.js';
import type { ClusterTrackers } from './ports/cluster-trackers.js';
import type { OpenRollouts } from './ports/open-rollouts.js';
import type { RolloutReader } from './ports/rollout-reader.js';
import { isInFlight, OPEN_STATUSES } from './state-model.js';
import { underLease } from './under-lease.js';

export interface SweepDeps {
  readonly open: OpenRollouts;
  readonly rollouts: Pick<RolloutReader, 'summary' | 'listApps'> &
    AppStateWriter &
    Pick<ClusterProgressWriter, 'recordCluster'>;
  readonly trackers: Pick<ClusterTrackers, 'list' | 'claimChain' | 'read'>;
  readonly trackQueue: Queue<TrackMessage>;
  readonly clusters: readonly string[];
  readonly notify: (sha: string) => Promise<void>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** A rollout this long past its deadline whose tracking did not end it is finished by the sweep. */
  readonly graceSeconds: number;
  readonly chainLeaseSeconds: number;
  /** The cluster's lease while its apps are timed out (track may batch-write them otherwise). */
  readonly leases?: ClusterLeases;
  /**
   * Release control: a wave whose gate no poll saw pass (a lost track message, a soak's end) is judged here,
   * and held apps are looked at again (a sync window closed, a freeze ended, a release message was lost).
   */
  readonly release?: {
    advanceQuietly(sha: string): Promise<unknown>;
    /** Held apps something may have freed meanwhile are looked at again (see the engine). */
    sweepHeld(sha: string): Promise<number>;
  };
}

/** A paused or halted rollout is not over: its held apps may still be released. */
const STILL_OPEN = OPEN_STATUSES;

export interface SweepReport {
  readonly open: number;
  readonly finished: number;
  readonly chainsRestarted: readonly string[];
}

/**
 * Nothing stays in flight for ever: a track chain whose message was lost is started again (its lease ran
 * out while rollouts are registered), and a rollout past its deadline that tracking did not end is finished
 * here: unfinished apps become `timeout` with what they were waiting for, unfinished clusters `failed`.
 */
export async function sweepRollouts(deps: SweepDeps): Promise<SweepReport> {
  const now = deps.clock.now();
  const chainsRestarted: string[] = [];
  for (const cluster of deps.clusters) {
    // The chain item beside the registrations: a live lease is left alone (a claim would stamp it touched,
    // and make the chain poll once more at its end for a registration that was not made).
    const read = (await deps.trackers.read?.(cluster)) ?? { registered: await deps.trackers.list(cluster) };
    if (read.registered.length === 0) continue;
    if ((read.chain?.leaseUntil ?? '') >= now.toISOString()) continue;
    const until = new Date(now.getTime() + deps.chainLeaseSeconds * 1000).toISOString();
    const chain = await deps.trackers.claimChain(cluster, until, now);
    if (chain === undefined) continue;
    await deps.trackQueue.send({ type: 'track', cluster, attempt: 0, chain });
    chainsRestarted.push(cluster);
  }
  if (chainsRestarted.length > 0) deps.logger.warn('track chains restarted', { clusters: chainsRestarted });

  const open = await deps.open.list();
  // A close is at the `opens` listed: a rollout revived since (reopened) stays for the next pass.
  const settled = await mapWithConcurrency(open, 4, async ({ sha, opens }) => {
    const summary = await deps.rollouts.summary(sha);
    if (summary === undefined || !STILL_OPEN.has(summary.status)) {
      await deps.open.close(sha, opens);
      return false;
    }
    if (deps.release !== undefined && ((summary.waves?.length ?? 0) > 0 || (summary.counts.held ?? 0) > 0)) {
      await deps.release.advanceQuietly(sha);
      if ((summary.counts.held ?? 0) > 0) await deps.release.sweepHeld(sha);
    }
    const deadline = Date.parse(summary.deadline ?? '');
    if (Number.isNaN(deadline) || now.getTime() < deadline + deps.graceSeconds * 1000) return false;
    const byCluster = new Map<string, StoredApp[]>();
    for (const app of await deps.rollouts.listApps(sha)) {
      if (isInFlight(app.state)) byCluster.set(app.cluster, [...(byCluster.get(app.cluster) ?? []), app]);
    }
    for (const [cluster, apps] of byCluster) {
      const timeOut = async () => {
        for (const app of apps) {
          await deps.rollouts.transition(
            sha,
            app,
            {
              state: 'timeout',
              message: `deadline passed (tracking had stopped): ${app.message ?? 'waiting'}`,
              finishedAt: now.toISOString(),
            },
            app.version,
          );
        }
      };
      // A cluster whose lease is held (a work item or a poll on it now) is left to the next pass.
      if (deps.leases === undefined) await timeOut();
      else
        await underLease(deps.leases, { sha, cluster, who: 'sweep', untilMs: Date.now() + 60_000 }, timeOut);
    }
    for (const [cluster, progress] of Object.entries(summary.clusters ?? {})) {
      if (progress !== 'planned' && progress !== 'retrying') continue;
      const reason = summary.clusterErrors?.[cluster];
      await deps.rollouts.recordCluster(
        sha,
        cluster,
        'failed',
        `its work did not finish before the deadline${reason === undefined ? '' : `: ${reason}`}`,
      );
    }
    const after = await deps.rollouts.syncSummary(sha);
    await deps.notify(sha);
    if (after !== undefined && !STILL_OPEN.has(after.status)) {
      await deps.open.close(sha, opens);
    }
    deps.logger.warn('rollout finished by the sweep', { sha, status: after?.status });
    return true;
  });
  const finished = settled.filter((s) => s.status === 'fulfilled' && s.value).length;
  for (const s of settled) {
    if (s.status === 'rejected') deps.logger.error('sweep failed for a rollout', { error: String(s.reason) });
  }
  return { open: open.length, finished, chainsRestarted };
}
