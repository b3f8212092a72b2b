import { createHash } from 'node:crypto';
import type { AppRecord } from '../rollouts/app-model.js';
import { type AppState, isTerminal, PROBLEM_STATES, STATE_RANK } from '../rollouts/state-model.js';
import { allTerminal, stateCounts } from './tally.js';
import type { RolloutSnapshot, SlackMessage } from './types.js';

/** States that get a notice of their own (thread reply / webhook message), once per app. */
export const FAILURE_STATES: ReadonlySet<AppState> = new Set([
  'failed',
  'degraded',
  'timeout',
  'error',
  'blocked',
]);

/** Listing order in messages: what needs a person first, then what is still moving. */
export const STATE_ORDER: readonly AppState[] = [
  ...PROBLEM_STATES,
  'syncing',
  'refreshed',
  'matched',
  'held',
  'synced',
  'superseded',
];

/** Identity of an app across notices (kind only when not an Application, to keep it readable). */
export function appKey(app: AppRecord): string {
  const kind = app.kind === 'Application' ? '' : `${app.kind}:`;
  return `${app.cluster}/${kind}${app.namespace}/${app.name}`;
}

export function compareApps(a: AppRecord, b: AppRecord): number {
  const byState = STATE_ORDER.indexOf(a.state) - STATE_ORDER.indexOf(b.state);
  return byState !== 0 ? byState : appKey(a).localeCompare(appKey(b));
}

/** A rollout has ended when its status is final and no app is still on its way. */
export function isRolloutEnded(snapshot: RolloutSnapshot): boolean {
  const finalStatus = snapshot.status !== 'pending' && snapshot.status !== 'in-progress';
  if (snapshot.tally !== undefined) return finalStatus && allTerminal(snapshot.tally.counts);
  return finalStatus && snapshot.apps.every((app) => isTerminal(app.state));
}

/** States only move forward, so the sum of ranks never falls between two snapshots of one rollout. */
export function rolloutProgress(snapshot: RolloutSnapshot): number {
  let sum = 0;
  for (const [state, n] of Object.entries(stateCounts(snapshot)))
    sum += (STATE_RANK[state as AppState] + 1) * (n ?? 0);
  return sum;
}

/** Failed or blocked apps that have not had their own notice yet, in listing order. */
export function pendingFailures(snapshot: RolloutSnapshot, replied: readonly string[]): AppRecord[] {
  const done = new Set(replied);
  return snapshot.apps
    .filter((app) => FAILURE_STATES.has(app.state) && !done.has(appKey(app)))
    .sort(compareApps);
}

export interface FailureBatch {
  /** Apps that get a notice each. */
  readonly single: readonly AppRecord[];
  /** Apps named together in one overflow notice, so a mass failure stays a bounded number of calls. */
  readonly overflow: readonly AppRecord[];
}

export function batchFailures(apps: readonly AppRecord[], maxNotices: number): FailureBatch {
  if (apps.length <= maxNotices) return { single: apps, overflow: [] };
  const singles = Math.max(0, maxNotices - 1);
  return { single: apps.slice(0, singles), overflow: apps.slice(singles) };
}

export function contentHash(message: SlackMessage): string {
  return createHash('sha256').update(JSON.stringify(message)).digest('base64url');
}
