import type { KubeObject } from './cluster-api.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Copies only `keys` of `value` that are present (undefined stays absent). */
function pick(value: unknown, keys: readonly string[]): Obj | undefined {
  if (!isObj(value)) return undefined;
  const out: Obj = {};
  for (const key of keys) if (value[key] !== undefined) out[key] = value[key];
  return out;
}

const pickAll = (value: unknown, keys: readonly string[]): unknown[] | undefined =>
  Array.isArray(value) ? value.map((entry) => pick(entry, keys) ?? entry) : undefined;

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const RESOURCE_KEYS = ['group', 'version', 'kind', 'namespace', 'name', 'status', 'health', 'hook'];
const HISTORY_KEYS = ['id', 'revision', 'revisions', 'deployedAt', 'deployStartedAt', 'initiatedBy'];
const OPERATION_KEYS = ['phase', 'message', 'startedAt', 'finishedAt', 'retryCount'];

/**
 * An Argo CD Application with only what matching, the preflight, tracking and the audit read (`metadata`
 * without `managedFields` and kubectl's last-applied copy; `spec`; `status` with `sync`, `health`,
 * `conditions`, per-resource sync/health, the deploy times of `history` and the operation's phase and
 * revisions, and the failed per-resource results). A real Application is 10-30 KB, mostly `status.resources[].` detail, `history[].source` and
 * `operationState.syncResult.resources` (its failed entries are kept); slimmed right after each page is parsed, a 5,000-app hub's
 * listing stays a few MB. Anything not named here is dropped, so a new reader must add its field.
 */
export function slimApplication(object: KubeObject): KubeObject {
  return slim(object, FULL);
}

/**
 * Less still, for fan-out (matching, the live verdict, the preflight and the refresh PATCH): no per-resource
 * status, no history and no sync results. Its listing is kept warm across invocations (the match index), so
 * a 5,000-app hub's index holds about 1-2 KB per app instead of the 6-8 KB `slimApplication` keeps.
 */
export function slimForRefresh(object: KubeObject): KubeObject {
  return slim(object, REFRESH);
}

/**
 * For tracking (the sync state, its failed resources, the post-sync check): no per-resource status and no
 * history, which only the audit reads; 150,000 resource entries for a 5,000-app hub were most of a poll's heap.
 */
export function slimForTrack(object: KubeObject): KubeObject {
  return slim(object, TRACK);
}

/** What a reader keeps of `status`: the per-resource status and history (the audit), the failed results. */
interface Keep {
  readonly detail: boolean;
  readonly failedResults: boolean;
}
const FULL: Keep = { detail: true, failedResults: true };
const TRACK: Keep = { detail: false, failedResults: true };
const REFRESH: Keep = { detail: false, failedResults: false };

// One pass that builds only what is kept: the per-resource entries a lean slim drops are never copied (they
// were most of a track poll's slimming, and its garbage).
function slim(object: KubeObject, keep: Keep): KubeObject {
  const { managedFields: _managed, annotations, ...metadata } = object.metadata;
  const slimMeta = { ...metadata } as Obj;
  if (annotations !== undefined) {
    const { [LAST_APPLIED]: _lastApplied, ...kept } = annotations;
    slimMeta.annotations = kept;
  }
  const out: Obj = { metadata: slimMeta };
  if (object.apiVersion !== undefined) out.apiVersion = object.apiVersion;
  if (object.kind !== undefined) out.kind = object.kind;
  if (object.spec !== undefined) out.spec = object.spec;
  if (object.operation !== undefined) out.operation = object.operation;
  if (isObj(object.status)) out.status = slimStatus(object.status, keep);
  return out as unknown as KubeObject;
}

function isFailedResult(r: unknown): boolean {
  if (!isObj(r)) return false;
  return r.status === 'SyncFailed' || r.hookPhase === 'Failed' || r.hookPhase === 'Error';
}

function slimStatus(status: Obj, keep: Keep): Obj {
  const { resources, history, operationState, summary: _summary, ...rest } = status;
  const out: Obj = { ...rest };
  if (keep.detail) {
    const slimResources = pickAll(resources, RESOURCE_KEYS);
    if (slimResources !== undefined) {
      out.resources = slimResources.map((r) =>
        isObj(r) && isObj(r.health) ? { ...r, health: pick(r.health, ['status']) } : r,
      );
    }
    const slimHistory = pickAll(history, HISTORY_KEYS);
    if (slimHistory !== undefined) out.history = slimHistory;
  }
  if (isObj(operationState)) {
    const op = pick(operationState, OPERATION_KEYS) ?? {};
    const sync = isObj(operationState.operation)
      ? pick(operationState.operation.sync, ['revision', 'revisions'])
      : undefined;
    if (sync !== undefined) op.operation = { sync };
    const result = pick(operationState.syncResult, ['revision', 'revisions']);
    if (result !== undefined) {
      if (keep.failedResults) {
        // Only the failed results (`syncFailures` reports them): the Synced ones are the bulk.
        const all = isObj(operationState.syncResult) ? operationState.syncResult.resources : undefined;
        const failed = Array.isArray(all) ? all.filter(isFailedResult) : [];
        if (failed.length > 0) result.resources = failed;
      }
      op.syncResult = result;
    }
    out.operationState = op;
  }
  return out;
}
