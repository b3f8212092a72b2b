import type { StoredApp } from './app-model.js';
import { liveRevisions } from './live-verdict.js';
import { observeTarget } from './observe.js';
import type { AppChange } from './ports/app-state.js';
import { withRolloutRevision } from './registry-revisions.js';
import { isTerminal, STATE_RANK } from './state-model.js';

/** What happens once an app has ended (the post-sync check): the changes to record with its end. */
export type OnEnd = (sha: string, app: StoredApp, live: unknown) => Promise<AppChange>;

export interface LiveView {
  readonly objects: ReadonlyMap<string, unknown>;
  /** Set when the cluster could not be read this poll. */
  readonly error?: string;
}

export interface DecideContext {
  readonly sha: string;
  readonly pastDeadline: boolean;
  readonly now: Date;
  readonly live: LiveView;
  /** The commit the rollout's ref points at now, as far as the pushes received tell (read when first asked). */
  readonly head: () => Promise<string | undefined>;
  readonly deps: { readonly onEnd?: OnEnd };
  /** The rollout's ref, named in the message of an app that ended at a later commit of it. */
  readonly ref?: string;
  /** Whether the rollout of a later commit has a record of this app that is not superseded. */
  readonly ownedLater?: (later: string, app: StoredApp) => Promise<boolean>;
  /** A registry rollout: the revisions Argo CD reports for its key (`registry-revisions.ts`). */
  readonly aliases?: ReadonlySet<string>;
}

/**
 * The change one poll makes to one unfinished app, or undefined. Forward only; past the deadline an app
 * that has not ended becomes `timeout` with what it was waiting for. An app that moved to a later commit of
 * its ref (the ref's head is another commit and the app is at it, or it is at a third revision, neither the
 * pushed one nor the one it was at when it was refreshed) is `superseded` when that commit's rollout took it
 * over; otherwise it is followed at that commit, which carries this push, and its record says so.
 */
export async function decideApp(app: StoredApp, context: DecideContext): Promise<AppChange | undefined> {
  const { sha, pastDeadline, now, live } = context;
  const found = live.objects.get(`${app.kind}/${app.namespace}/${app.name}`);
  const object =
    found === undefined || context.aliases === undefined
      ? found
      : withRolloutRevision(found, sha, context.aliases);
  const missing = live.error ?? 'not found on the cluster';
  const moved = object === undefined ? undefined : await movedOn(app, object, context);
  const owned = moved !== undefined && (await context.ownedLater?.(moved, app)) !== false;
  const at = moved !== undefined && !owned ? moved : sha;
  const observed = object === undefined ? undefined : observeTarget(app.kind, object, at);
  let change: AppChange;
  if (moved !== undefined && owned && observed !== undefined && !isTerminal(observed.state)) {
    change = {
      state: 'superseded',
      message: `superseded: now at ${moved.slice(0, 12)}, a later push of its ref`,
      revision: moved,
    };
  } else if (at !== sha && observed !== undefined && (isTerminal(observed.state) || !pastDeadline)) {
    if (STATE_RANK[observed.state] < STATE_RANK[app.state]) return undefined;
    const where = `at ${moved?.slice(0, 12)}, a later commit of ${context.ref ?? 'its ref'} that carries this push`;
    change = { ...observed, revision: at, message: `${observed.state} ${where}${suffix(observed.message)}` };
  } else if (observed !== undefined && (isTerminal(observed.state) || !pastDeadline)) {
    if (STATE_RANK[observed.state] < STATE_RANK[app.state]) return undefined;
    change = { ...observed, message: observed.message ?? null };
  } else if (pastDeadline) {
    const waiting = observed?.message ?? (object === undefined ? missing : app.message);
    change = { state: 'timeout', message: `deadline passed${waiting === undefined ? '' : `: ${waiting}`}` };
  } else {
    change = { message: object === undefined ? missing : 'not observed' };
  }
  if (isTerminal(change.state ?? app.state) && change.finishedAt === undefined) {
    change = { ...change, finishedAt: now.toISOString() };
  }
  if (change.state !== undefined && isTerminal(change.state) && change.state !== 'superseded') {
    if (context.deps.onEnd !== undefined && object !== undefined) {
      change = { ...change, ...(await context.deps.onEnd(sha, app, object)) };
    }
  }
  return differs(app, change) ? change : undefined;
}

const suffix = (message: string | undefined) => (message === undefined ? '' : `: ${message}`);

/** The later commit the app is at, when it has left the pushed one for a newer push of its ref. */
async function movedOn(app: StoredApp, object: unknown, context: DecideContext) {
  if (app.kind === 'ApplicationSet') return undefined;
  const revisions = liveRevisions({ kind: app.kind, raw: object });
  if (revisions.length === 0 || revisions.includes(context.sha)) return undefined;
  const current = revisions[0] as string;
  const head = await context.head();
  if (head !== undefined && head !== context.sha && revisions.includes(head)) return head;
  if (app.fromRevision !== undefined && !revisions.includes(app.fromRevision)) return current;
  return undefined;
}

function differs(app: StoredApp, change: AppChange): boolean {
  return Object.entries(change).some(([field, value]) => {
    if (field === 'finishedAt' && !isTerminal(change.state ?? app.state)) return false;
    const current = (app as unknown as Record<string, unknown>)[field];
    return value === null ? current !== undefined : JSON.stringify(current) !== JSON.stringify(value);
  });
}
