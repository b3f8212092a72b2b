import { errorMessage } from '../errors.js';
import type { ClusterWorkMessage, GateMessage } from '../queue/messages.js';
import type { AppTarget } from '../rollouts/app-model.js';
import type { SyncedSummary } from '../rollouts/ports/app-state.js';
import type { StoredPushEvent } from '../rollouts/ports/rollout-writer.js';
import type { WaveProgress } from '../rollouts/rollout-model.js';
import type { PushEvent } from '../webhook/push-event.js';
import { createGate } from './gate.js';
import type { GateOutcome, ReleaseEngineDeps } from './ports.js';

/**
 * The push a release or retry work item carries: the stored one (no file list: the apps it names matched the
 * push already), under a delivery id of its own so its decisions are kept beside the push's.
 */
function followUpEvent(event: StoredPushEvent, kind: 'release' | 'retry', stamp: string): PushEvent {
  return {
    ...event,
    deliveryId: `${kind}:${stamp}`,
    changedFiles: { known: false, reason: 'no-commit-list' },
  };
}

const RETRY_CHUNK = 500;

/**
 * Release control's moves on the engine's side: a rollout's waves written when its push is planned, the
 * gate looked at whenever the rollout's apps change (the next wave opened exactly once: a conditional
 * write), held apps released by one work item per cluster, a newer commit superseding an older one's
 * waves, and retries.
 */
export function createReleaseEngine(deps: ReleaseEngineDeps) {
  const log = deps.logger.child({ part: 'release' });

  async function release(sha: string, clusters?: readonly string[]): Promise<number> {
    const summary = await deps.records.viewSummary(sha);
    const event = await deps.records.pushEvent(sha);
    if (summary === undefined || event === undefined) return 0;
    const targets = clusters ?? Object.keys(summary.clusters ?? {});
    const stamp = deps.clock.now().toISOString();
    await deps.queue.sendBatch(
      targets.map((cluster) => {
        const message: ClusterWorkMessage = {
          type: 'cluster',
          trigger: summary.trigger,
          event: followUpEvent(event, 'release', stamp),
          cluster,
          attempt: 0,
          release: true,
        };
        return { message };
      }),
    );
    log.info('held apps released', { sha, clusters: targets.length });
    return targets.length;
  }

  async function restartDeadline(sha: string): Promise<void> {
    const now = deps.clock.now();
    const deadline = new Date(now.getTime() + deps.trackDeadlineSeconds * 1000).toISOString();
    await deps.records.extendDeadline(sha, deadline);
    await deps.open.open(sha, deadline);
  }

  const { advance } = createGate(deps, { release, restartDeadline });

  return {
    release,
    advance,
    restartDeadline,
    /**
     * The sweep's look at held apps: only those a wave that is open (or done) holds can have been freed by
     * something no message announces (a freeze that ended, a sync window that closed, a lost release), so
     * only their clusters get a release; a waiting wave's apps are released when it opens. Nothing while
     * the rollout waits for an operator (paused, halted).
     */
    async sweepHeld(sha: string): Promise<number> {
      const summary = await deps.records.viewSummary(sha);
      if (summary === undefined || summary.paused === true || summary.halted === true) return 0;
      const waves = summary.waves ?? [];
      if (waves.length === 0) return (summary.counts.held ?? 0) > 0 ? release(sha) : 0;
      const views = summary.waveViews ?? {};
      const clusters = new Set(
        waves
          .filter((w) => w.state !== 'waiting' && (views[w.name]?.c.held ?? 0) > 0)
          .flatMap((w) => views[w.name]?.clusters ?? []),
      );
      return clusters.size === 0 ? 0 : release(sha, [...clusters]);
    },
    /** A gate message: a soak ended, or an operator resumed or aborted (then the held apps are looked at). */
    async onGate(message: GateMessage): Promise<GateOutcome> {
      const outcome = await advance(message.sha, undefined, {
        fromGate: true,
        ...(message.skipFailed === true ? { skipFailed: true } : {}),
      });
      if (message.release === true && outcome.opened === undefined) await release(message.sha);
      return outcome;
    },
    /** Asks the fanout function to unpin (the API reaches no cluster itself). */
    async requestUnpin(repo: string | undefined): Promise<void> {
      await deps.queue.send({ type: 'unpin', ...(repo === undefined ? {} : { repo }) });
    },
    /** Asks the fanout function to look at the gate (what the API does: it opens no wave itself). */
    async requestGate(sha: string, options: { readonly skipFailed?: boolean; readonly release?: boolean }) {
      await deps.queue.send({
        type: 'gate',
        sha,
        ...(options.skipFailed === true ? { skipFailed: true } : {}),
        ...(options.release === true ? { release: true } : {}),
      });
    },
    /** Never throws: the gate is looked at again by the next poll, gate message or sweep. */
    async advanceQuietly(sha: string, known?: SyncedSummary): Promise<GateOutcome> {
      try {
        return await advance(sha, known);
      } catch (error) {
        log.warn('gate not judged', { sha, error: errorMessage(error) });
        return { sha };
      }
    },

    /** The rollout's waves, written once when its push is planned: the first open, the rest waiting. */
    async initWaves(sha: string): Promise<boolean> {
      const waves = deps.waves();
      if (waves.length === 0) return false;
      const now = deps.clock.now().toISOString();
      await deps.control.initWaves(
        sha,
        waves.map(
          (w, i): WaveProgress => ({
            name: w.name,
            clusters: w.clusters,
            state: i === 0 ? 'open' : 'waiting',
            ...(i === 0 ? { openedAt: now } : {}),
          }),
        ),
      );
      return true;
    },

    /**
     * A newer commit of the same ref took over: the older rollout's waves not yet open end `superseded`,
     * and its held apps with them.
     */
    async supersede(olderSha: string, newerSha: string): Promise<number> {
      const control = await deps.control.read(olderSha);
      const waves = control?.waves ?? [];
      let moved = 0;
      for (const [index, wave] of waves.entries()) {
        if (wave.state !== 'waiting' && wave.state !== 'halted') continue;
        const reason = `superseded by ${newerSha.slice(0, 12)}`;
        if (await deps.control.moveWave(olderSha, index, [wave.state], { state: 'superseded', reason }))
          moved += 1;
      }
      if (moved > 0) {
        if (control?.halted === true) await deps.control.setFlag(olderSha, 'halted', false);
        await release(olderSha);
        log.info('waves superseded', { sha: olderSha, by: newerSha, waves: moved });
      }
      return moved;
    },

    /** Retry work items (the apps named, per cluster): they are preflighted again and refreshed. */
    async retry(sha: string, apps: readonly AppTarget[]): Promise<void> {
      const event = await deps.records.pushEvent(sha);
      const summary = await deps.records.viewSummary(sha);
      if (event === undefined || summary === undefined) return;
      // At most RETRY_CHUNK apps a work item, so a message stays far below SQS's 256 KiB.
      const byCluster = new Map<string, AppTarget[]>();
      for (const app of apps) byCluster.set(app.cluster, [...(byCluster.get(app.cluster) ?? []), app]);
      const chunks: (readonly [string, AppTarget[]])[] = [];
      for (const [cluster, list] of byCluster) {
        for (let i = 0; i < list.length; i += RETRY_CHUNK)
          chunks.push([cluster, list.slice(i, i + RETRY_CHUNK)]);
      }
      const stamp = deps.clock.now().toISOString();
      await deps.queue.sendBatch(
        chunks.map(([cluster, list]) => ({
          message: {
            type: 'cluster',
            trigger: 'manual',
            event: followUpEvent(event, 'retry', stamp),
            cluster,
            attempt: 0,
            retry: true,
            apps: list.map(({ cluster: c, kind, namespace, name }) => ({
              cluster: c,
              kind,
              namespace,
              name,
            })),
          } satisfies ClusterWorkMessage,
        })),
      );
    },
  };
}

export type ReleaseEngine = ReturnType<typeof createReleaseEngine>;
