import type { AppRecord } from '../rollouts/app-model.js';
import type { SecretCheck } from '../secrets/secret-check.js';
import { appLabel, describeResourceFailure, STATE_EMOJI, secretProblems } from './app-lines.js';
import { context, packSections, SLACK_LIMITS } from './blocks.js';
import { code, escapeMrkdwn, folded, link, redactCredentials, safeText, truncate } from './mrkdwn.js';
import { type MessageLimits, renderAppNotice } from './rollout-message.js';
import type { RolloutSnapshot, SlackBlock, SlackMessage } from './types.js';

/** Failed or blocked apps that share one cause: one thread reply names the cause once, then the apps. */
export interface CauseGroup {
  readonly apps: readonly AppRecord[];
}

export interface CauseBatch {
  /** Each group gets one reply (a group of one: the app's own notice). */
  readonly groups: readonly CauseGroup[];
  /** Beyond the cap: named together in one overflow reply. */
  readonly overflow: readonly AppRecord[];
}

/**
 * What makes two apps' notices the same: the secret problems of a block (key, property, outcome, not the
 * ExternalSecret's name), or the failed resources as Argo CD reported them, or the state and message.
 * An app with nothing to say why gets no key: it is never grouped (nothing would tie it to another).
 */
export function causeKey(app: AppRecord): string | undefined {
  const problems = secretProblems(app);
  if (app.state === 'blocked' && problems.length > 0) {
    const each = problems.map((p) => `${p.outcome}|${p.store ?? ''}|${p.key ?? ''}|${p.property ?? ''}`);
    return `secret:${[...new Set(each)].sort().join(';')}`;
  }
  const failures = app.failures ?? [];
  if (failures.length > 0) {
    const each = failures.map((f) => `${f.kind}|${f.status}|${folded(f.message)}`);
    return `sync:${app.state}:${[...new Set(each)].sort().join(';')}`;
  }
  const message = folded(app.message ?? '');
  return message === '' ? undefined : `${app.state}:${message}`;
}

/** Groups in listing order (of each group's first app); at most `maxNotices` replies in all. */
export function batchByCause(apps: readonly AppRecord[], maxNotices: number): CauseBatch {
  const groups: AppRecord[][] = [];
  const byKey = new Map<string, AppRecord[]>();
  for (const app of apps) {
    const key = causeKey(app);
    const group = key === undefined ? undefined : byKey.get(key);
    if (group !== undefined) {
      group.push(app);
      continue;
    }
    const fresh = [app];
    groups.push(fresh);
    if (key !== undefined) byKey.set(key, fresh);
  }
  if (groups.length <= maxNotices) return { groups: groups.map((g) => ({ apps: g })), overflow: [] };
  const kept = Math.max(0, maxNotices - 1);
  return {
    groups: groups.slice(0, kept).map((g) => ({ apps: g })),
    overflow: groups.slice(kept).flat(),
  };
}

/** The reply for one group: its cause once, the apps it holds, and what to do next. */
export function renderCauseNotice(
  snapshot: RolloutSnapshot,
  group: CauseGroup,
  limits: MessageLimits,
): SlackMessage {
  const [first, ...rest] = group.apps;
  if (first === undefined) throw new Error('an empty cause group');
  const next = context(nextStep(snapshot, first));
  if (rest.length === 0) {
    const notice = renderAppNotice(snapshot, first, { standalone: false, limits });
    const blocks = [...notice.blocks];
    if (blocks.length < SLACK_LIMITS.blocksPerMessage) blocks.push(next);
    return { text: notice.text, blocks };
  }
  const count = group.apps.length;
  const head = `${STATE_EMOJI[first.state]} ${causeHead(first, count, limits)}`;
  const listed = group.apps.slice(0, limits.maxAppsListed);
  const lines = [
    head,
    ...reasonLines(first, limits),
    ...listed.map((app) => `• ${appLabel(app, snapshot.argocdUrls)}`),
  ];
  const packed = packSections(lines, SLACK_LIMITS.blocksPerMessage - 2);
  const blocks: SlackBlock[] = [...packed.blocks];
  const more = count - listed.length + packed.left;
  if (more > 0) blocks.push(context(`…and ${more} more`));
  blocks.push(next);
  const text = `${count} apps ${first.state}: one cause`;
  return { text: escapeMrkdwn(truncate(redactCredentials(text), SLACK_LIMITS.fallbackText)), blocks };
}

/** `1 missing secret `k` (property `p`) blocks 7 apps`, `7 apps failed to sync, one reason`, … */
function causeHead(app: AppRecord, count: number, messageLimits: MessageLimits): string {
  const problems = uniqueProblems(app);
  const [only] = problems;
  if (app.state === 'blocked' && problems.length === 1 && only !== undefined)
    return `*${secretPhrase(only)}* blocks ${count} apps:`;
  if (app.state === 'blocked' && problems.length > 1)
    return `*${problems.length} secret problems* block ${count} apps:`;
  if ((app.failures ?? []).length > 0) return `*${count} apps ${app.state}*, Argo CD's one reason:`;
  return `*${count} apps ${app.state}*: ${safeText(folded(app.message ?? ''), messageLimits.maxReasonChars)}`;
}

function reasonLines(app: AppRecord, messageLimits: MessageLimits): string[] {
  const problems = uniqueProblems(app);
  if (app.state === 'blocked' && problems.length > 1)
    return problems.slice(0, 10).map((p) => `• ${secretPhrase(p)}`);
  const failures = app.failures ?? [];
  if (failures.length > 0)
    return failures.slice(0, 5).map((f) => `> ${describeResourceFailure(f, messageLimits.maxReasonChars)}`);
  return [];
}

/** What a person does about it, with the command the CLI offers (`gitops-sync retry`). */
function nextStep(snapshot: RolloutSnapshot, app: AppRecord): string {
  const retry = code(`gitops-sync retry ${snapshot.sha.slice(0, 12)}`);
  const page = snapshot.pageUrl === undefined ? '' : ` · ${link(snapshot.pageUrl, 'rollout page')}`;
  const problems = uniqueProblems(app);
  const [only] = problems;
  let what: string;
  if (app.state === 'blocked' && problems.length > 0) {
    const fix = only === undefined || problems.length > 1 ? 'fix each secret above' : secretFix(only);
    what = `${fix}, then ${retry} (each reconcile pass also preflights blocked apps again)`;
  } else if (app.state === 'failed' || app.state === 'error')
    what = `fix what Argo CD refused (the manifest in Git, or the policy that denied it), then push again or ${retry}`;
  else if (app.state === 'timeout') what = `see why the app did not finish in Argo CD, then ${retry}`;
  else what = 'look at the app in Argo CD; a fix in Git starts a new rollout';
  return `:point_right: What to do: ${what}${page}`;
}

function secretPhrase(check: SecretCheck): string {
  const key = code(safeText(check.key ?? check.externalSecret, 200));
  const property = check.property === undefined ? '' : ` (property ${code(safeText(check.property, 120))})`;
  switch (check.outcome) {
    case 'missing-secret':
      return `1 missing secret ${key}${property}`;
    case 'missing-property':
      return `1 missing property ${code(safeText(check.property ?? '?', 120))} of secret ${key}`;
    case 'access-denied':
      return `secret ${key} not readable (access denied)`;
    case 'not-json':
      return `secret ${key} is not JSON${property}`;
    default:
      return `secret ${key}${property}: ${check.outcome}`;
  }
}

function secretFix(check: SecretCheck): string {
  const key = code(safeText(check.key ?? check.externalSecret, 200));
  switch (check.outcome) {
    case 'missing-secret':
      return `create ${key} in its store`;
    case 'missing-property':
      return `add property ${code(safeText(check.property ?? '?', 120))} to ${key}`;
    case 'access-denied':
      return `let the store's role read ${key}`;
    case 'not-json':
      return `store ${key} as a JSON object`;
    default:
      return `check the ExternalSecret reading ${key}`;
  }
}

function uniqueProblems(app: AppRecord): SecretCheck[] {
  const seen = new Set<string>();
  return secretProblems(app).filter((p) => {
    const key = `${p.outcome}|${p.store ?? ''}|${p.key ?? ''}|${p.property ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
