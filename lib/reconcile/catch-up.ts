import type { StoredApp } from '../rollouts/model.js';
import type { BehindApp } from './behind.js';

/**
 * What the catch-up does about the apps behind a commit, from their records at that commit:
 * - `refresh`: no record (its push never matched or never came), or one that ended elsewhere;
 * - `retry`: `blocked` (preflighted again, released when it passes) or `error` (after the last attempt);
 * - left alone: `held` or `aborted` there, or still in flight within the refresh window of its claim.
 */
export interface CatchUp {
  readonly refresh: readonly BehindApp[];
  readonly retry: readonly BehindApp[];
}

const RETRY = new Set(['blocked', 'error']);
const LEAVE = new Set(['held', 'aborted']);

export function planCatchUp(
  apps: readonly BehindApp[],
  records: readonly StoredApp[],
  now: number,
  windowMs: number,
): CatchUp {
  const byKey = new Map(
    records.filter((r) => r.kind === 'Application').map((r) => [`${r.cluster}/${r.namespace}/${r.name}`, r]),
  );
  const refresh: BehindApp[] = [];
  const retry: BehindApp[] = [];
  for (const app of apps) {
    const record = byKey.get(`${app.cluster}/${app.namespace}/${app.name}`);
    if (record === undefined) refresh.push(app);
    else if (RETRY.has(record.state)) retry.push(app);
    else if (LEAVE.has(record.state) || inFlight(record, now, windowMs)) continue;
    else refresh.push(app);
  }
  return { refresh, retry };
}

function inFlight(record: StoredApp, now: number, windowMs: number): boolean {
  if (record.claimedAt === undefined) return false;
  const claimed = Date.parse(record.claimedAt);
  return Number.isFinite(claimed) && now - claimed < windowMs;
}
