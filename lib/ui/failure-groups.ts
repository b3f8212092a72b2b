import type { AppRecord } from '../rollouts/app-model.js';
import type { AppState } from '../rollouts/state-model.js';
import { filePosition } from '../secrets/unparseable.js';

/** App states the page lists first, grouped by what caused them. */
export const ATTENTION_STATES: ReadonlySet<AppState> = new Set([
  'failed',
  'error',
  'degraded',
  'timeout',
  'blocked',
]);

/** Listing order within a cluster: what needs a person first, then what is still moving, then what ended well. */
export const PAGE_STATE_ORDER: Readonly<Record<AppState, number>> = {
  failed: 0,
  error: 1,
  degraded: 2,
  timeout: 3,
  blocked: 4,
  'out-of-sync': 5,
  aborted: 6,
  held: 7,
  syncing: 8,
  refreshed: 9,
  matched: 10,
  synced: 11,
  superseded: 12,
};

export interface CauseGroup {
  /** The state the apps share (`blocked`, `failed`, …). */
  readonly state: AppState;
  /** What they fail for, as one line: a secret reference, Argo CD's per-resource reason, the app's message. */
  readonly cause: string;
  readonly apps: readonly AppRecord[];
}

/**
 * The apps that fail for one cause together ("1 missing secret blocks 7 apps"): a blocked app by its
 * first blocking secret reference (store key and property, which many apps' ExternalSecrets share), a
 * failed sync by Argo CD's message for its first failed resource, anything else by its message.
 * Largest groups first; linear in the number of apps.
 */
export function causeGroups(apps: readonly AppRecord[], states: ReadonlySet<AppState>): CauseGroup[] {
  const groups = new Map<string, { state: AppState; cause: string; apps: AppRecord[] }>();
  for (const app of apps) {
    if (!states.has(app.state)) continue;
    const cause = causeOf(app);
    const key = `${app.state}\u0000${cause}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { state: app.state, cause, apps: [app] });
    else group.apps.push(app);
  }
  return [...groups.values()].sort(
    (a, b) =>
      b.apps.length - a.apps.length ||
      PAGE_STATE_ORDER[a.state] - PAGE_STATE_ORDER[b.state] ||
      (a.cause < b.cause ? -1 : a.cause > b.cause ? 1 : 0),
  );
}

export function causeOf(app: AppRecord): string {
  const problems = (app.secrets ?? []).filter((s) => s.outcome !== 'ok' && s.outcome !== 'not-rendered');
  const secret = problems.find((s) => s.blocking === true) ?? problems[0];
  if (app.state === 'blocked' && secret !== undefined) {
    const ref =
      secret.outcome === 'unparseable'
        ? `manifest ${secret.file === undefined ? '' : filePosition(secret.file, secret.line, secret.column)}`.trim()
        : secret.key === undefined
          ? `ExternalSecret ${secret.externalSecret}`
          : `secret ${secret.key}${secret.property === undefined ? '' : ` property ${secret.property}`}`;
    return `${ref}: ${secret.outcome}`;
  }
  const failure = app.failures?.[0];
  if (failure !== undefined) return `${failure.kind}: ${oneLine(failure.message)}`;
  const message = oneLine(app.message ?? '');
  if (message !== '') return message;
  const status = [app.syncStatus, app.health].filter((p) => p !== undefined && p !== '').join('/');
  return status === '' ? app.state : status;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= 300 ? line : `${line.slice(0, 299)}…`;
}
