import { errorMessage } from '../errors.js';
import type { Clock, Logger, Queue } from '../ports.js';
import type { ClusterWorkMessage, FanoutMessage, GateMessage } from '../queue/messages.js';
import type { AppTarget, WaveProgress } from '../rollouts/model.js';
import type { OpenRollouts, ReleaseRecords, SyncedSummary } from '../rollouts/rollout-store.js';
import type { ControlStore } from './ports.js';
import { judgeWave, type ReleaseWave } from './wave-judge.js';

export interface ReleaseEngineDeps {
  readonly control: ControlStore;
  readonly records: ReleaseRecords;
  readonly open: Pick<OpenRollouts, 'open'>;
  readonly queue: Queue<FanoutMessage>;
  /** The fleet's waves in order (empty: no waves, one implicit wave as before). */
  readonly waves: () => readonly ReleaseWave[];
  readonly clock: Clock;
  readonly logger: Logger;
  readonly trackDeadlineSeconds: number;
}

export interface GateOutcome {
  readonly sha: string;
  readonly opened?: string;
  readonly halted?: string;
}

/** Who the engine's own actions are recorded as. */
export const ENGINE = 'gitops-sync';
/** SQS's longest delay: a longer soak is waited out in several hops. */
const MAX_DELAY_SECONDS = 900;
const RETRY_CHUNK = 500;
const ENDED_WAVE: ReadonlySet<WaveProgress['state']> = new Set(['done', 'superseded', 'aborted']);

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
          event: {
            ...event,
            deliveryId: `release:${stamp}`,
            changedFiles: { known: false, reason: 'no-commit-list' },
          },
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

  /** Opens wave `index` (false: it was open already, or no longer waiting), releasing its apps. */
  async function openWave(sha: string, waves: readonly WaveProgress[], index: number): Promise<boolean> {
    const wave = waves[index];
    if (wave === undefined) return false;
    const now = deps.clock.now();
    if (
      !(await deps.control.moveWave(sha, index, ['waiting'], { state: 'open', openedAt: now.toISOString() }))
    ) {
      return false;
    }
    // Its apps start their deadline now, not at the push.
    await restartDeadline(sha);
    await deps.control.recordAction(sha, {
      action: 'open-wave',
      by: ENGINE,
      at: now.toISOString(),
      detail: wave.name,
    });
    await release(sha);
    log.info('wave opened', { sha, wave: wave.name });
    return true;
  }

  async function soakUntil(sha: string, until: Date): Promise<void> {
    const seconds = Math.ceil((until.getTime() - deps.clock.now().getTime()) / 1000);
    await deps.queue.send(
      { type: 'gate', sha },
      { delaySeconds: Math.max(1, Math.min(MAX_DELAY_SECONDS, seconds + 1)) },
    );
  }

  /**
   * Looks at the rollout's waves: the first not yet ended is judged on its apps' counts (every cluster's
   * work item done first); it soaks, halts the rollout, or ends and opens the next. Safe to run from any
   * number of pollers at once: each move is conditional on the state it was judged from.
   */
  async function advance(
    sha: string,
    known?: SyncedSummary,
    options: { readonly skipFailed?: boolean; readonly fromGate?: boolean } = {},
  ): Promise<GateOutcome> {
    const summary = known ?? (await deps.records.viewSummary(sha));
    const waves = summary?.waves ?? [];
    if (summary === undefined || waves.length === 0 || summary.aborted === true || summary.paused === true) {
      return { sha };
    }
    if (summary.halted === true && options.skipFailed !== true) return { sha };
    const progress = Object.values(summary.clusters ?? {});
    if (progress.some((p) => p === 'planned' || p === 'retrying')) return { sha };
    const index = waves.findIndex((w) => !ENDED_WAVE.has(w.state));
    const wave = waves[index];
    if (wave === undefined) return { sha };
    if (wave.state === 'waiting') {
      return (await openWave(sha, waves, index)) ? { sha, opened: wave.name } : { sha };
    }
    const definition = deps.waves().find((w) => w.name === wave.name) ?? {
      name: wave.name,
      clusters: wave.clusters,
      soakMs: 0,
      maxUnhealthy: { count: 0 },
    };
    const now = deps.clock.now();
    const skipFailed = options.skipFailed === true && wave.state === 'halted';
    const judged = judgeWave(definition, summary.waveViews?.[wave.name], now, { skipFailed });
    switch (judged.kind) {
      case 'wait':
        return { sha };
      case 'halt': {
        if (wave.state === 'halted') {
          // Resumed without skipFailed while still over the bound: it halts again, unless a resume with
          // skipFailed has moved the wave on meanwhile (two gate messages of one resume run side by side).
          await deps.control.haltWave(sha, index);
          return { sha, halted: wave.name };
        }
        if (
          !(await deps.control.moveWave(sha, index, ['open', 'soaking'], {
            state: 'halted',
            reason: judged.reason,
          }))
        ) {
          return { sha };
        }
        await deps.control.haltWave(sha, index);
        await deps.control.recordAction(sha, {
          action: 'halt',
          by: ENGINE,
          at: now.toISOString(),
          detail: `wave ${wave.name}: ${judged.reason}`,
        });
        log.warn('rollout halted', { sha, wave: wave.name, reason: judged.reason });
        return { sha, halted: wave.name };
      }
      case 'soak': {
        if (wave.state === 'open') {
          const until = judged.until.toISOString();
          if (await deps.control.moveWave(sha, index, ['open'], { state: 'soaking', soakUntil: until })) {
            await soakUntil(sha, judged.until);
          }
        } else if (options.fromGate === true) await soakUntil(sha, judged.until);
        return { sha };
      }
      case 'next': {
        if (
          !(await deps.control.moveWave(sha, index, [wave.state], {
            state: 'done',
            doneAt: now.toISOString(),
          }))
        ) {
          return { sha };
        }
        if (wave.state === 'halted') await deps.control.setFlag(sha, 'halted', false);
        const next = index + 1;
        if (next >= waves.length) return { sha };
        return (await openWave(sha, waves, next)) ? { sha, opened: waves[next]?.name as string } : { sha };
      }
    }
  }

  async function restartDeadline(sha: string): Promise<void> {
    const now = deps.clock.now();
    const deadline = new Date(now.getTime() + deps.trackDeadlineSeconds * 1000).toISOString();
    await deps.records.extendDeadline(sha, deadline);
    await deps.open.open(sha, deadline);
  }

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
            event: {
              ...event,
              deliveryId: `retry:${stamp}`,
              changedFiles: { known: false, reason: 'no-commit-list' },
            },
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
