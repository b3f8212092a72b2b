import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The deadline (epoch ms, real time) of the work the current call belongs to, carried implicitly so an
 * adapter deep below (the Argo CD client under the preflight) can end its request at the work item's
 * budget instead of only at its own timeout, without every layer between passing it on.
 */
const storage = new AsyncLocalStorage<number>();

/** Runs `fn` with `deadlineMs` as the work deadline (an outer, earlier one stays in force). */
export function withWorkDeadline<T>(deadlineMs: number, fn: () => Promise<T>): Promise<T> {
  const outer = storage.getStore();
  return storage.run(outer === undefined ? deadlineMs : Math.min(outer, deadlineMs), fn);
}

/** The current work deadline, when the caller runs under one. */
export function workDeadline(): number | undefined {
  return storage.getStore();
}
