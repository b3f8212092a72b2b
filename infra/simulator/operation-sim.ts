import { revisionKey, status, syncedRevisions } from './application-sim.js';
import type { StoredObject } from './resource-store.js';
import { type SyncOutcome, timestamp } from './sim-annotations.js';

type Json = Record<string, unknown>;

/** One timed change of a running sync operation. */
export interface OperationStep {
  readonly afterMs: number;
  apply(app: StoredObject, now: Date): void;
}

export interface OperationTimings {
  readonly syncMs: number;
  readonly healthMs: number;
  readonly retryMs: number;
  readonly retries: number;
}

/** Starts an automated sync operation (phase Running) for the given revision(s). */
export function startOperation(
  app: StoredObject,
  revisions: readonly string[],
  multi: boolean,
  now: Date,
): void {
  const sync = multi ? { revisions: [...revisions] } : { revision: revisions[0] };
  const operation = { sync, initiatedBy: { automated: true }, retry: { limit: 5 } };
  app.operation = operation;
  status(app).operationState = {
    operation,
    phase: 'Running',
    message: 'one or more tasks are running',
    startedAt: timestamp(now),
  };
}

/** The steps an outcome takes after the operation started. */
export function operationSteps(
  app: StoredObject,
  outcome: SyncOutcome,
  timings: OperationTimings,
): OperationStep[] {
  const name = app.metadata.name;
  const { syncMs, healthMs, retryMs, retries } = timings;
  const healthy = (health: string, message?: string): OperationStep[] => [
    {
      afterMs: syncMs,
      apply: (a, now) => finish(a, 'Succeeded', 'successfully synced (all tasks run)', now),
    },
    { afterMs: healthMs, apply: (a, now) => setHealth(a, health, now, message) },
  ];
  const retrying = (): OperationStep[] =>
    Array.from({ length: retries }, (_, i) => [
      { afterMs: syncMs, apply: (a: StoredObject, now: Date) => markRetrying(a, i + 1, now) },
      { afterMs: retryMs, apply: (a: StoredObject) => restartAttempt(a) },
    ]).flat();
  switch (outcome) {
    case 'succeed':
      return healthy('Healthy');
    case 'degrade':
      return healthy('Degraded', `Deployment "${name}" exceeded its progress deadline`);
    case 'missing':
      return healthy('Missing', `Deployment "${name}" is missing`);
    case 'fail':
      return [{ afterMs: syncMs, apply: (a, now) => finish(a, 'Failed', FAILED_MESSAGE, now, name) }];
    case 'error':
      return [{ afterMs: syncMs, apply: (a, now) => finish(a, 'Error', ERROR_MESSAGE, now) }];
    case 'retry-then-succeed':
      return [...retrying(), ...healthy('Healthy')];
    case 'retry-then-fail':
      return [
        ...retrying(),
        {
          afterMs: syncMs,
          apply: (a, now) => finish(a, 'Failed', `${FAILED_MESSAGE} (retried ${retries} times).`, now, name),
        },
      ];
    default:
      return []; // hang: Running forever; unchanged never starts an operation
  }
}

const FAILED_MESSAGE = 'one or more synchronization tasks completed unsuccessfully';
const ERROR_MESSAGE = 'SyncWaveHook failed: simulated error: the sync could not run';

function operationState(app: StoredObject): Json {
  return (status(app).operationState ?? {}) as Json;
}

function operationRevisions(app: StoredObject): string[] {
  const sync = (operationState(app).operation as Json | undefined)?.sync as Json | undefined;
  if (Array.isArray(sync?.revisions)) return sync.revisions.map(String);
  return typeof sync?.revision === 'string' ? [sync.revision] : [];
}

function finish(app: StoredObject, phase: string, message: string, now: Date, failedResource?: string): void {
  const state = operationState(app);
  const revisions = operationRevisions(app);
  const multi = Array.isArray(((state.operation as Json | undefined)?.sync as Json | undefined)?.revisions);
  state.phase = phase;
  state.message = message;
  state.finishedAt = timestamp(now);
  state.syncResult = {
    ...(multi ? { revisions } : { revision: revisions[0] }),
    resources: [
      {
        group: 'apps',
        version: 'v1',
        kind: 'Deployment',
        namespace: app.metadata.name,
        name: app.metadata.name,
        status: failedResource === undefined ? 'Synced' : 'SyncFailed',
        message:
          failedResource === undefined
            ? `deployment.apps/${app.metadata.name} configured`
            : `simulated: admission webhook denied the request for deployment "${failedResource}"`,
        syncPhase: 'Sync',
      },
    ],
  };
  delete app.operation;
  const appStatus = status(app);
  if (phase !== 'Succeeded') return;
  // Only a sync of what is still the compared revision makes the app Synced; a newer push stays OutOfSync.
  if (revisionKey(syncedRevisions(app)) === revisionKey(revisions)) {
    appStatus.sync = { ...(appStatus.sync as Json), status: 'Synced' };
  }
  appStatus.health = {
    status: 'Progressing',
    message: 'Waiting for rollout to finish',
    lastTransitionTime: timestamp(now),
  };
  const history = Array.isArray(appStatus.history) ? (appStatus.history as Json[]) : [];
  const id = history.length === 0 ? 0 : Number(history[history.length - 1]?.id ?? 0) + 1;
  history.push({
    ...(multi ? { revisions } : { revision: revisions[0] }),
    deployedAt: timestamp(now),
    deployStartedAt: state.startedAt,
    id,
    initiatedBy: { automated: true },
  });
  appStatus.history = history.slice(-10);
}

function setHealth(app: StoredObject, health: string, now: Date, message?: string): void {
  status(app).health = {
    status: health,
    ...(message === undefined ? {} : { message }),
    lastTransitionTime: timestamp(now),
  };
}

/** A failed attempt with retries left: Running again, `finishedAt` set, as Argo CD's controller does. */
function markRetrying(app: StoredObject, attempt: number, now: Date): void {
  const state = operationState(app);
  const at = timestamp(now).slice(11, 19);
  state.phase = 'Running';
  state.finishedAt = timestamp(now);
  state.retryCount = attempt;
  state.message = `${FAILED_MESSAGE}. Retrying attempt #${attempt} at ${at}.`;
}

function restartAttempt(app: StoredObject): void {
  const state = operationState(app);
  delete state.finishedAt;
  state.message = 'one or more tasks are running';
}
