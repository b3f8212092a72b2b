import type { ResourceFailure } from '../rollouts/app-model.js';
import type { AppState } from '../rollouts/state-model.js';
import { describeFailure, syncFailures } from './sync-failures.js';

/** What one poll of a live Application says about the pushed commit. */
export interface ObservedState {
  readonly state: AppState;
  readonly syncStatus?: string;
  readonly health?: string;
  readonly revision?: string;
  readonly message?: string;
  readonly finishedAt?: string;
  /** A failed sync's failed resources (only on `failed`, which is terminal, so never stale). */
  readonly failures?: readonly ResourceFailure[];
}

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

/** Automated sync is on when `syncPolicy.automated` is set and not disabled (`enabled: false`, Argo CD ≥ 3.1). */
export function hasAutomatedSync(app: unknown): boolean {
  const automated = obj(obj(obj(app).spec).syncPolicy).automated;
  if (automated === undefined || automated === null) return false;
  return obj(automated).enabled !== false;
}

/**
 * Interprets an Application's status for the pushed commit `sha` (SPEC "Following a sync to its end"):
 * it has ended when its synced revision is the commit and no operation runs for it. `Succeeded` is not
 * `Healthy`, and `Running` with `finishedAt` set is a retry in progress, not an end.
 */
export function observeApplication(app: unknown, sha: string): ObservedState {
  const status = obj(obj(app).status);
  const sync = obj(status.sync);
  const health = obj(status.health);
  const op = obj(status.operationState);
  const syncStatus = str(sync.status);
  const healthStatus = str(health.status);
  const revisions = [str(sync.revision), ...strings(sync.revisions)].filter(
    (r): r is string => r !== undefined,
  );
  const revision = revisions.includes(sha) ? sha : revisions[0];
  const base = {
    ...(syncStatus === undefined ? {} : { syncStatus }),
    ...(healthStatus === undefined ? {} : { health: healthStatus }),
    ...(revision === undefined ? {} : { revision }),
  };

  const phase = str(op.phase);
  const opRevisions = [
    str(obj(op.syncResult).revision),
    ...strings(obj(op.syncResult).revisions),
    str(obj(obj(op.operation).sync).revision),
    ...strings(obj(obj(op.operation).sync).revisions),
  ];
  const operationIsOurs = opRevisions.includes(sha);
  const opMessage = str(op.message);
  const finishedAt = str(op.finishedAt);

  if (phase === 'Running' || phase === 'Terminating') {
    const retrying = phase === 'Running' && finishedAt !== undefined;
    // A retry shows the failed attempt's first resource failure: the reason it is retrying.
    const [first] = retrying ? syncFailures(op).failures : [];
    const reason = first === undefined ? '' : ` (${describeFailure(first)})`;
    return {
      state: 'syncing',
      ...base,
      message: retrying ? `retrying: ${opMessage ?? 'sync failed'}${reason}` : (opMessage ?? 'sync running'),
    };
  }
  if (operationIsOurs && (phase === 'Failed' || phase === 'Error')) {
    const { failures, total } = syncFailures(op);
    const more = total > failures.length ? ` (${total} resources failed, ${failures.length} listed)` : '';
    return {
      state: 'failed',
      ...base,
      message: `${opMessage ?? `sync ${phase.toLowerCase()}`}${more}`,
      ...(finishedAt === undefined ? {} : { finishedAt }),
      ...(failures.length === 0 ? {} : { failures }),
    };
  }
  if (!revisions.includes(sha)) {
    return {
      state: 'refreshed',
      ...base,
      message: conditionMessage(status) ?? 'waiting for Argo CD to see the commit',
    };
  }
  if (syncStatus === 'OutOfSync') {
    if (!hasAutomatedSync(app)) {
      return { state: 'out-of-sync', ...base, message: 'no automated sync policy: a person must sync' };
    }
    return { state: 'syncing', ...base, message: 'waiting for automated sync' };
  }
  if (syncStatus !== 'Synced') {
    return {
      state: 'syncing',
      ...base,
      message: conditionMessage(status) ?? `sync status ${syncStatus ?? 'unknown'}`,
    };
  }
  // The end of a sync is when its health settles, which the poll that sees it records (not the operation's end).
  switch (healthStatus) {
    case 'Healthy':
      return { state: 'synced', ...base };
    case 'Suspended':
      return { state: 'synced', ...base, message: 'healthy but suspended' };
    case 'Degraded':
    case 'Missing':
      return {
        state: 'degraded',
        ...base,
        message: str(health.message) ?? `health ${healthStatus}`,
      };
    default:
      return { state: 'syncing', ...base, message: `waiting for health (${healthStatus ?? 'unknown'})` };
  }
}

function conditionMessage(status: Obj): string | undefined {
  const conditions = Array.isArray(status.conditions) ? status.conditions.map(obj) : [];
  const error = conditions.find((c) => str(c.type)?.endsWith('Error'));
  return error === undefined ? undefined : `${str(error.type)}: ${str(error.message) ?? ''}`.trim();
}
