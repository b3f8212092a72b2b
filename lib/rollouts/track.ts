import type { Clock, Logger, Queue } from '../ports.js';
import type { TrackMessage } from '../queue/messages.js';
import { type AppState, isTerminal, STATE_RANK, type StoredApp, type TargetKind } from './model.js';
import { observeTarget } from './observe.js';
import type { AppChange, AppStateWriter, RolloutReader, TrackingClaims } from './rollout-store.js';

export interface LiveLister {
  /** One LIST per kind on the cluster, keyed by `liveKey(kind, namespace, name)`. */
  listTargets(cluster: string, kinds: readonly TargetKind[]): Promise<ReadonlyMap<string, unknown>>;
}

export const liveKey = (kind: string, namespace: string, name: string) => `${kind}/${namespace}/${name}`;

export interface TrackDeps {
  readonly rollouts: RolloutReader & AppStateWriter & TrackingClaims;
  readonly live: LiveLister;
  /** Runs once when an app ends (the ExternalSecret post-sync check); returns fields to record with the end. */
  readonly onEnd?: (sha: string, app: StoredApp, live: unknown) => Promise<AppChange>;
  /** Keeps the commit's Slack message current; never throws. */
  readonly notify: (sha: string) => Promise<void>;
  readonly queue: Queue<TrackMessage>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly intervalSeconds: number;
  readonly maxIntervalSeconds: number;
}

export interface TrackResult {
  readonly changed: number;
  readonly unfinished: number;
  readonly requeued: boolean;
}

/**
 * One poll of a rollout: one LIST per kind per cluster, each app's state written at once (conditionally:
 * forward only, no lost update), the summary re-derived, Slack updated once, and the next poll enqueued
 * with backoff (5 s doubling to 30 s by default) until every app ends or the deadline turns it to `timeout`.
 */
export async function trackRollout(message: TrackMessage, deps: TrackDeps): Promise<TrackResult> {
  const log = deps.logger.child({ sha: message.sha, attempt: message.attempt });
  const now = deps.clock.now();
  const pastDeadline = now.getTime() >= Date.parse(message.deadline);
  let apps = await deps.rollouts.listApps(message.sha);
  const live = await readLive(
    apps.filter((a) => !isTerminal(a.state)),
    deps,
    log,
  );

  let changed = 0;
  let conflicts = await applyChanges(apps, live, message.sha, pastDeadline, now, deps);
  changed += conflicts.updated;
  if (conflicts.conflicted.size > 0) {
    // Someone else wrote these apps since we read them: read again and decide once more from the same live view.
    apps = await deps.rollouts.listApps(message.sha);
    const retry = apps.filter((a) => conflicts.conflicted.has(key(a)));
    conflicts = await applyChanges(retry, live, message.sha, pastDeadline, now, deps);
    changed += conflicts.updated;
  }

  const summary = await deps.rollouts.syncSummary(message.sha);
  if (changed > 0 || message.attempt === 0) await deps.notify(message.sha);
  const unfinished = Object.entries(summary?.counts ?? {})
    .filter(([state]) => !isTerminal(state as AppState))
    .reduce((sum, [, count]) => sum + (count ?? 0), 0);
  // Past the deadline the chain ends whatever happens. Otherwise it ends only if it can release the tracking
  // claim, which fails when an app changed since our summary: a later delivery added apps to follow.
  const release = () => deps.rollouts.releaseTracking(message.sha, summary?.appsVersion ?? 0);
  let requeued: boolean;
  if (pastDeadline) {
    await release();
    requeued = false;
  } else {
    requeued = unfinished > 0 || !(await release());
  }
  if (requeued) {
    const delaySeconds = Math.min(
      deps.intervalSeconds * 2 ** Math.min(message.attempt + 1, 10),
      deps.maxIntervalSeconds,
    );
    const untilDeadline = Math.max(1, Math.ceil((Date.parse(message.deadline) - now.getTime()) / 1000));
    await deps.queue.send(
      { ...message, attempt: message.attempt + 1 },
      { delaySeconds: Math.min(delaySeconds, untilDeadline) },
    );
  }
  log.info('rollout polled', { changed, unfinished, status: summary?.status, requeued });
  return { changed, unfinished, requeued };
}

const key = (a: StoredApp) => liveKey(a.kind, a.namespace, a.name) + `@${a.cluster}`;

type LiveView = ReadonlyMap<string, { object?: unknown; error?: string }>;

async function readLive(apps: readonly StoredApp[], deps: TrackDeps, log: Logger): Promise<LiveView> {
  const byCluster = new Map<string, Set<TargetKind>>();
  for (const app of apps) byCluster.set(app.cluster, (byCluster.get(app.cluster) ?? new Set()).add(app.kind));
  const view = new Map<string, { object?: unknown; error?: string }>();
  await Promise.all(
    [...byCluster].map(async ([cluster, kinds]) => {
      try {
        const objects = await deps.live.listTargets(cluster, [...kinds]);
        for (const app of apps.filter((a) => a.cluster === cluster)) {
          const object = objects.get(liveKey(app.kind, app.namespace, app.name));
          view.set(key(app), object === undefined ? { error: 'not found on the cluster' } : { object });
        }
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        log.warn('cluster unreadable this poll', { cluster, error: reason });
        for (const app of apps.filter((a) => a.cluster === cluster)) {
          view.set(key(app), { error: `cannot read cluster ${cluster}: ${reason}` });
        }
      }
    }),
  );
  return view;
}

async function applyChanges(
  apps: readonly StoredApp[],
  live: LiveView,
  sha: string,
  pastDeadline: boolean,
  now: Date,
  deps: TrackDeps,
): Promise<{ updated: number; conflicted: Set<string> }> {
  const conflicted = new Set<string>();
  let updated = 0;
  await Promise.all(
    apps
      .filter((app) => !isTerminal(app.state))
      .map(async (app) => {
        const change = await decide(app, live.get(key(app)), sha, pastDeadline, now, deps);
        if (change === undefined) return;
        const result = await deps.rollouts.transition(sha, app, change, app.version);
        if (result === 'updated') updated += 1;
        else conflicted.add(key(app));
      }),
  );
  return { updated, conflicted };
}

async function decide(
  app: StoredApp,
  live: { object?: unknown; error?: string } | undefined,
  sha: string,
  pastDeadline: boolean,
  now: Date,
  deps: TrackDeps,
): Promise<AppChange | undefined> {
  const observed = live?.object === undefined ? undefined : observeTarget(app.kind, live.object, sha);
  let change: AppChange;
  if (observed !== undefined && (isTerminal(observed.state) || !pastDeadline)) {
    if (STATE_RANK[observed.state] < STATE_RANK[app.state]) return undefined;
    change = { ...observed, message: observed.message ?? null };
  } else if (pastDeadline) {
    const waiting = observed?.message ?? live?.error ?? app.message;
    change = { state: 'timeout', message: `deadline passed${waiting === undefined ? '' : `: ${waiting}`}` };
  } else {
    change = { message: live?.error ?? 'not observed' };
  }
  if (isTerminal(change.state ?? app.state) && change.finishedAt === undefined) {
    change = { ...change, finishedAt: now.toISOString() };
  }
  if (
    change.state !== undefined &&
    isTerminal(change.state) &&
    deps.onEnd !== undefined &&
    live?.object !== undefined
  ) {
    change = { ...change, ...(await deps.onEnd(sha, app, live.object)) };
  }
  return differs(app, change) ? change : undefined;
}

function differs(app: StoredApp, change: AppChange): boolean {
  return Object.entries(change).some(([field, value]) => {
    if (field === 'finishedAt' && !isTerminal(change.state ?? app.state)) return false;
    const current = (app as unknown as Record<string, unknown>)[field];
    return value === null ? current !== undefined : JSON.stringify(current) !== JSON.stringify(value);
  });
}
