import type { DecisionRecord, StoredApp } from '../rollouts/app-model.js';
import type { BehindApp } from './behind.js';

/**
 * What the catch-up does about the apps behind a commit, from their records at that commit:
 * - `refresh`: no record (its push never came, or never reached it), or one that ended elsewhere;
 * - left alone too: an app the push decided not to refresh (`paths-miss`, `revision-miss`);
 * - `retry`: `blocked` (preflighted again, released when it passes) or `error` (after the last attempt);
 * - left alone: `held` or `aborted` there, or still in flight within the refresh window of its claim.
 */
export interface CatchUp {
  readonly refresh: readonly BehindApp[];
  readonly retry: readonly BehindApp[];
}

const RETRY = new Set(['blocked', 'error']);
const LEAVE = new Set(['held', 'aborted']);

/** Decisions by which the push left an app alone on purpose: the catch-up does not second-guess them. */
const NOT_FOR_THIS_PUSH = new Set(['paths-miss', 'revision-miss']);

export function planCatchUp(
  apps: readonly BehindApp[],
  records: readonly StoredApp[],
  now: number,
  windowMs: number,
  decisions: readonly DecisionRecord[] = [],
): CatchUp {
  const byKey = new Map(
    records.filter((r) => r.kind === 'Application').map((r) => [`${r.cluster}/${r.namespace}/${r.name}`, r]),
  );
  const leftAlone = new Set(
    decisions
      .filter((d) => d.kind === 'Application' && NOT_FOR_THIS_PUSH.has(d.decision))
      .map((d) => `${d.cluster}/${d.namespace}/${d.name}`),
  );
  const refresh: BehindApp[] = [];
  const retry: BehindApp[] = [];
  for (const app of apps) {
    const key = `${app.cluster}/${app.namespace}/${app.name}`;
    const record = byKey.get(key);
    if (record === undefined && leftAlone.has(key)) continue;
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
