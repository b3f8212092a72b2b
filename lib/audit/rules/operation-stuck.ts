import { parseTime } from '../k8s-object.js';
import { type AuditRule, draft } from '../rule.js';
import type { JsonValue } from '../types.js';

/** Phases in which the controller still owns the operation. */
const UNFINISHED = ['Running', 'Terminating'] as const;

export const operationStuckRule: AuditRule = {
  id: 'operation-stuck',
  severity: 'high',
  title: 'Sync operation running past its limit',
  docs: 'Read the operation message (a hook or resource it waits for, or a failing retry); fix it, or terminate the operation and sync again.',
  needs: [],
  check(context) {
    const { app, input, options } = context;
    const operation = app.operation;
    const phase = operation?.phase;
    if (operation === undefined || phase === undefined) return [];
    if (!(UNFINISHED as readonly string[]).includes(phase)) return [];
    // startedAt stays at the first attempt while Argo CD retries, so a retry loop counts from the start.
    const started = parseTime(operation.startedAt);
    if (started === undefined) return [];
    const runningMs = input.now.getTime() - started;
    if (runningMs <= options.operationStuckAfterMs) return [];
    const retrying = phase === 'Running' && operation.finishedAt !== undefined;
    const minutes = Math.floor(runningMs / 60_000);
    const evidence: Record<string, JsonValue> = {
      phase,
      startedAt: operation.startedAt ?? null,
      runningMinutes: minutes,
      limitMinutes: Math.round(options.operationStuckAfterMs / 60_000),
    };
    if (operation.finishedAt !== undefined) evidence.finishedAt = operation.finishedAt;
    if (operation.retryCount !== undefined) evidence.retryCount = operation.retryCount;
    if (operation.message !== undefined) evidence.message = operation.message;
    const what = retrying ? `failing and retrying (retry #${operation.retryCount ?? 1})` : phase;
    return [
      draft(operationStuckRule, context, {
        message: `sync operation ${what} for ${minutes} min since ${operation.startedAt}`,
        evidence,
      }),
    ];
  },
};
