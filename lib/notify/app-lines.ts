import type { AppRecord, ResourceFailure } from '../rollouts/app-model.js';
import type { AppState, RolloutStatus } from '../rollouts/state-model.js';
import type { SecretCheck } from '../secrets/secret-check.js';
import { filePosition } from '../secrets/unparseable.js';
import { code, escapeMrkdwn, folded, link, safeText } from './mrkdwn.js';

/** Failed resources named per app in the rollout message and in the app's own notice. */
const FAILURES_IN_LINE = 1;
const FAILURES_IN_DETAIL = 5;

export const STATUS_EMOJI: Readonly<Record<RolloutStatus, string>> = {
  pending: ':hourglass:',
  'in-progress': ':hourglass_flowing_sand:',
  succeeded: ':white_check_mark:',
  failed: ':x:',
  partial: ':warning:',
  blocked: ':no_entry:',
  halted: ':octagonal_sign:',
  paused: ':double_vertical_bar:',
  aborted: ':heavy_multiplication_x:',
};

export const STATE_EMOJI: Readonly<Record<AppState, string>> = {
  matched: ':white_circle:',
  held: ':pause_button:',
  refreshed: ':arrows_counterclockwise:',
  syncing: ':hourglass_flowing_sand:',
  synced: ':white_check_mark:',
  'out-of-sync': ':large_yellow_circle:',
  failed: ':x:',
  degraded: ':warning:',
  timeout: ':alarm_clock:',
  error: ':boom:',
  blocked: ':no_entry:',
  superseded: ':fast_forward:',
  aborted: ':heavy_multiplication_x:',
};

/**
 * `cluster` ns/name → destination, with the kind when it is not an Application; escaped for mrkdwn. The
 * name links to the Argo CD UI (`{argocdUrl}/applications/{namespace}/{name}`) when the fleet file names
 * the cluster's `argocdUrl`.
 */
export function appLabel(app: AppRecord, argocdUrls?: Readonly<Record<string, string>>): string {
  const kind = app.kind === 'Application' ? '' : ` (${app.kind})`;
  const base = argocdUrls?.[app.cluster];
  const url =
    base === undefined || app.kind !== 'Application' || app.namespace === '*'
      ? undefined
      : `${base}/applications/${encodeURIComponent(app.namespace)}/${encodeURIComponent(app.name)}`;
  const name = link(url, escapeMrkdwn(`${app.namespace}/${app.name}`));
  const destination =
    app.destination === undefined || app.destination === app.cluster
      ? ''
      : ` → ${code(escapeMrkdwn(app.destination))}`;
  return `${code(escapeMrkdwn(app.cluster))} ${name}${kind}${destination}`;
}

/** `Deployment shop/web: admission webhook … denied the request` for one failed resource. */
export function describeResourceFailure(failure: ResourceFailure, maxChars: number): string {
  const where = failure.namespace === undefined ? failure.name : `${failure.namespace}/${failure.name}`;
  return `${safeText(`${failure.kind} ${where}`, 200)}: ${safeText(folded(failure.message), maxChars)}`;
}

/** Secret checks that explain a block or a warning; `ok` and the informational `not-rendered` are left out. */
export function secretProblems(app: AppRecord): readonly SecretCheck[] {
  return (app.secrets ?? []).filter((s) => s.outcome !== 'ok' && s.outcome !== 'not-rendered');
}

/** ExternalSecret, key and property by name (never a value), then the outcome. */
export function describeSecret(check: SecretCheck): string {
  if (check.outcome === 'unparseable') {
    const at =
      check.file === undefined
        ? ''
        : ` ${code(safeText(filePosition(check.file, check.line, check.column), 200))}`;
    return `manifest${at}: unparseable`;
  }
  const parts = [`ExternalSecret ${code(safeText(check.externalSecret, 120))}`];
  if (check.key !== undefined) parts.push(`key ${code(safeText(check.key, 200))}`);
  if (check.property !== undefined) parts.push(`property ${code(safeText(check.property, 120))}`);
  return `${parts.join(' ')}: ${check.outcome}`;
}

/** Sync and health as Argo CD reports them, e.g. `OutOfSync/Degraded`. */
export function syncHealth(app: AppRecord): string | undefined {
  const parts = [app.syncStatus, app.health].filter((p): p is string => p !== undefined && p !== '');
  return parts.length === 0 ? undefined : safeText(parts.join('/'), 60);
}

/** The short reason shown in the rollout message, on one line. */
export function shortReason(app: AppRecord, maxChars: number): string | undefined {
  const problems = secretProblems(app);
  if (app.state === 'blocked' && problems.length > 0) {
    const shown = problems.slice(0, 2).map(describeSecret).join('; ');
    const more = problems.length > 2 ? ` (+${problems.length - 2} more)` : '';
    return `${shown}${more}`;
  }
  const failures = app.failures ?? [];
  if (failures.length > 0) {
    const shown = failures.slice(0, FAILURES_IN_LINE).map((f) => describeResourceFailure(f, maxChars));
    const more = failures.length > FAILURES_IN_LINE ? ` (+${failures.length - FAILURES_IN_LINE} more)` : '';
    return `${shown.join('; ')}${more}`;
  }
  if (app.message !== undefined && folded(app.message) !== '') return safeText(folded(app.message), maxChars);
  return syncHealth(app);
}

/** One line per app in the rollout message. */
export function appLine(
  app: AppRecord,
  maxReasonChars: number,
  argocdUrls?: Readonly<Record<string, string>>,
): string {
  const reason = shortReason(app, maxReasonChars);
  const head = `${STATE_EMOJI[app.state]} *${app.state}* · ${appLabel(app, argocdUrls)}`;
  return reason === undefined ? head : `${head} — ${reason}`;
}

/** The detail of one failed or blocked app for its own notice: every secret problem, the full message. */
export function appDetail(
  app: AppRecord,
  maxMessageChars: number,
  argocdUrls?: Readonly<Record<string, string>>,
): string {
  const lines = [`${STATE_EMOJI[app.state]} *${app.state}* · ${appLabel(app, argocdUrls)}`];
  const status = syncHealth(app);
  const revision = app.revision === undefined ? undefined : code(safeText(app.revision.slice(0, 12), 12));
  const facts = [status, revision === undefined ? undefined : `revision ${revision}`].filter(Boolean);
  if (facts.length > 0) lines.push(facts.join(' · '));
  for (const check of secretProblems(app).slice(0, 10)) {
    const note = check.message === undefined ? '' : ` — ${safeText(folded(check.message), 300)}`;
    lines.push(`• ${describeSecret(check)}${note}`);
  }
  const extra = secretProblems(app).length - 10;
  if (extra > 0) lines.push(`• and ${extra} more ExternalSecret problems`);
  const failures = app.failures ?? [];
  for (const failure of failures.slice(0, FAILURES_IN_DETAIL)) {
    lines.push(`• ${describeResourceFailure(failure, 500)}`);
  }
  if (failures.length > FAILURES_IN_DETAIL) {
    lines.push(`• and ${failures.length - FAILURES_IN_DETAIL} more failed resources`);
  }
  if (app.message !== undefined && app.message.trim() !== '') {
    const quoted = safeText(app.message.trim(), maxMessageChars)
      .split(/\r?\n/)
      .map((line) => `>${line}`);
    lines.push(...quoted);
  }
  return lines.join('\n');
}
