import type { ResourceFailure } from '../rollouts/app-model.js';

/** Failed resources kept per app record (the rest are counted); Slack lists fewer. */
export const MAX_RECORDED_FAILURES = 10;
/** Characters kept of one resource's message (admission denials can quote whole objects). */
export const MAX_FAILURE_MESSAGE = 500;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

// `scheme://user:token@host` → `scheme://***@host`: Argo CD messages may quote repository URLs.
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi;

/**
 * The resources an operation's sync result reports failing: `status: SyncFailed`, or a hook whose phase
 * is `Failed`/`Error`. Argo CD's operation message only says "one or more synchronization tasks completed
 * unsuccessfully"; the reason on-call needs (an admission webhook denial, an immutable field) is here.
 */
export function syncFailures(operationState: unknown): { failures: ResourceFailure[]; total: number } {
  const resources = obj(obj(operationState).syncResult).resources;
  const failed = (Array.isArray(resources) ? resources.map(obj) : []).filter((r) => {
    const hookPhase = str(r.hookPhase);
    return r.status === 'SyncFailed' || hookPhase === 'Failed' || hookPhase === 'Error';
  });
  const failures = failed.slice(0, MAX_RECORDED_FAILURES).map((r): ResourceFailure => {
    const namespace = str(r.namespace);
    const group = str(r.group);
    const status = r.status === 'SyncFailed' ? 'SyncFailed' : (str(r.hookPhase) ?? 'Failed');
    return {
      kind: str(r.kind) ?? 'Unknown',
      name: str(r.name) ?? '(unnamed)',
      ...(namespace === undefined ? {} : { namespace }),
      ...(group === undefined ? {} : { group }),
      status,
      message: capped(str(r.message) ?? 'no message'),
    };
  });
  return { failures, total: failed.length };
}

function capped(text: string): string {
  const clean = text.replace(URL_USERINFO, '$1***@').replace(/\s+/g, ' ').trim();
  return clean.length > MAX_FAILURE_MESSAGE ? `${clean.slice(0, MAX_FAILURE_MESSAGE - 1)}…` : clean;
}

/** `Deployment web/api: message` — one failure in a line. */
export function describeFailure(failure: ResourceFailure): string {
  const where = failure.namespace === undefined ? failure.name : `${failure.namespace}/${failure.name}`;
  return `${failure.kind} ${where}: ${failure.message}`;
}
