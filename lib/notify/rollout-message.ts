import { type AppRecord, warnReasonsOf } from '../rollouts/app-model.js';
import { APP_STATES, type AppState, type StateCounts } from '../rollouts/state-model.js';
import { appDetail, appLine, STATE_EMOJI, STATUS_EMOJI } from './app-lines.js';
import { context, divider, header, packSections, SLACK_LIMITS, section } from './blocks.js';
import { code, escapeMrkdwn, link, oneLine, redactCredentials, safeText, truncate } from './mrkdwn.js';
import { compareApps, FAILURE_STATES, isRolloutEnded } from './notice-plan.js';
import { clusterLines, refsLabel, timingLine } from './progress-lines.js';
import { releaseContext, releaseLines } from './release-lines.js';
import { appTotal, stateCounts, warnedTotal } from './tally.js';
import type { RolloutSnapshot, SlackBlock, SlackMessage } from './types.js';

export interface MessageLimits {
  /** Apps listed by name in the rollout message; the rest are counted ("and N more"). */
  readonly maxAppsListed: number;
  /** Characters of an app's reason in the rollout message. */
  readonly maxReasonChars: number;
  /** Characters of an app's message in its own notice. */
  readonly maxDetailChars: number;
}

export const DEFAULT_MESSAGE_LIMITS: MessageLimits = {
  maxAppsListed: 40,
  maxReasonChars: 200,
  maxDetailChars: 2000,
};

export function shortSha(sha: string): string {
  return sha.slice(0, 7);
}

/** A registry rollout's key is its digest's hex: shown `sha256:` and seven hex; a commit as its short SHA. */
function shortRevision(snapshot: Pick<RolloutSnapshot, 'sha' | 'trigger'>): string {
  return snapshot.trigger === 'registry' ? `sha256:${snapshot.sha.slice(0, 7)}` : shortSha(snapshot.sha);
}

export function shortRef(ref: string): string {
  return ref.replace(/^refs\/(heads|tags)\//, '');
}

/** States a person must look at; listed while the rollout still runs (the rest are only counted). */
const NEEDS_A_PERSON = new Set([...FAILURE_STATES, 'out-of-sync']);
/** Ended well: counted, never listed (a superseded app's later push carries it on). */
const QUIET: ReadonlySet<string> = new Set(['synced', 'superseded']);

/**
 * The one message of a rollout: what was pushed (every ref, so a later tag is named), how far it got
 * (counts per state and per destination cluster, elapsed time and deadline), and the apps to look at.
 * While it runs only failed, blocked and out-of-sync apps are listed, so the message stays compact
 * however many apps are refreshing; once it ended every app that is not synced is.
 */
export function renderRolloutMessage(
  snapshot: RolloutSnapshot,
  limits: MessageLimits = DEFAULT_MESSAGE_LIMITS,
): SlackMessage {
  const apps = snapshot.apps;
  const ended = isRolloutEnded(snapshot);
  const listable = (state: AppState) => (ended ? !QUIET.has(state) : NEEDS_A_PERSON.has(state));
  const listedApps = apps.filter((app) => listable(app.state)).sort(compareApps);
  // With a tally, `apps` holds the first of them: the rest are counted from the summary's views.
  const counts = stateCounts(snapshot);
  const listableTotal = Math.max(
    listedApps.length,
    Object.entries(counts).reduce((n, [state, c]) => (listable(state as AppState) ? n + (c ?? 0) : n), 0),
  );
  const timing = timingLine(snapshot, ended);
  const page = snapshot.pageUrl === undefined ? '' : ` · ${link(snapshot.pageUrl, 'rollout page')}`;
  const status = `${STATUS_EMOJI[snapshot.status]} *${snapshot.status}* · ${countsLine(counts)}${page}`;
  const top: SlackBlock[] = [
    header(
      `${STATUS_EMOJI[snapshot.status]} ${snapshot.repo.fullName} ${shortRevision(snapshot)}: ${snapshot.status}`,
    ),
    section(commitLines(snapshot)),
    section(timing === undefined ? status : `${status}\n${timing}`),
  ];
  const release = releaseLines(snapshot);
  if (release.length > 0) top.push(section(release.join('\n')));
  const clusters = clusterLines(snapshot);
  if (clusters.length > 1) top.push(section(clusters.join('\n')));
  const notes = releaseContext(snapshot);
  if (notes.length > 0) top.push(context(notes.join('\n')));
  const blocks = [...top];
  if (listedApps.length > 0) {
    const listed = listedApps.slice(0, limits.maxAppsListed);
    const room = SLACK_LIMITS.blocksPerMessage - top.length - 2;
    const packed = packSections(
      listed.map((app) => appLine(app, limits.maxReasonChars, snapshot.argocdUrls)),
      room,
    );
    blocks.push(divider, ...packed.blocks);
    const more = listableTotal - listed.length + packed.left;
    const what = ended ? 'not synced' : 'to look at';
    if (more > 0) blocks.push(context(`…and ${more} more ${more === 1 ? 'app' : 'apps'} ${what}`));
  }
  const warned = warnedLines(apps, snapshot);
  if (warned.length > 0 && blocks.length < SLACK_LIMITS.blocksPerMessage) {
    blocks.push(context(warned.join('\n')));
  }
  return { text: fallbackText(snapshot), blocks };
}

/**
 * Apps the preflight let through with a warning (verdict `warn`: a Helm chart not rendered, a manifest that
 * does not parse, a reference that does not resolve under policy `warn`), each named once with its reasons.
 */
function warnedLines(apps: readonly AppRecord[], snapshot: RolloutSnapshot): string[] {
  const lines = apps.flatMap((app) => {
    const reasons = warnReasonsOf(app);
    if (reasons.length === 0) return [];
    const shown = reasons.slice(0, 2).map((r) => safeText(oneLine(r), 200));
    const more = reasons.length > 2 ? ` (+${reasons.length - 2} more)` : '';
    return [
      `:warning: *warn* ${code(escapeMrkdwn(app.cluster))} ${escapeMrkdwn(`${app.namespace}/${app.name}`)}: ${shown.join('; ')}${more}`,
    ];
  });
  const total = Math.max(lines.length, warnedTotal(snapshot, lines.length));
  return total <= 5 ? lines : [...lines.slice(0, 5), `…and ${total - 5} more apps warned`];
}

/**
 * The notice of one failed or blocked app: a thread reply under the rollout message (bot mode), or a
 * message of its own that also says which push it belongs to (`standalone`, webhook mode).
 */
export function renderAppNotice(
  snapshot: RolloutSnapshot,
  app: AppRecord,
  options: { readonly standalone: boolean; readonly limits?: MessageLimits },
): SlackMessage {
  const limits = options.limits ?? DEFAULT_MESSAGE_LIMITS;
  const blocks: SlackBlock[] = options.standalone ? [section(commitLines(snapshot))] : [];
  const packed = packSections(
    appDetail(app, limits.maxDetailChars, snapshot.argocdUrls).split('\n'),
    SLACK_LIMITS.blocksPerMessage - blocks.length,
  );
  blocks.push(...packed.blocks);
  const where = `${app.cluster} ${app.namespace}/${app.name}`;
  const prefix = options.standalone ? `${snapshot.repo.fullName} ${shortRevision(snapshot)}: ` : '';
  return { text: plain(`${prefix}${where} ${app.state}`), blocks };
}

/** One notice naming many failed or blocked apps, so a mass failure costs one call. */
export function renderOverflowNotice(
  snapshot: RolloutSnapshot,
  apps: readonly AppRecord[],
  options: { readonly standalone: boolean; readonly limits?: MessageLimits },
): SlackMessage {
  const limits = options.limits ?? DEFAULT_MESSAGE_LIMITS;
  const intro = `${apps.length} more apps failed or were blocked:`;
  const blocks: SlackBlock[] = options.standalone ? [section(commitLines(snapshot))] : [];
  const listed = apps.slice(0, limits.maxAppsListed);
  const packed = packSections(
    [intro, ...listed.map((app) => appLine(app, limits.maxReasonChars, snapshot.argocdUrls))],
    SLACK_LIMITS.blocksPerMessage - blocks.length - 1,
  );
  blocks.push(...packed.blocks);
  const more = apps.length - listed.length + packed.left;
  if (more > 0) blocks.push(context(`…and ${more} more`));
  const prefix = options.standalone ? `${snapshot.repo.fullName} ${shortRevision(snapshot)}: ` : '';
  return { text: plain(`${prefix}${apps.length} more apps failed or were blocked`), blocks };
}

/** A thread reply: a ref (usually a tag) was pushed on this commit after its message was posted. */
export function renderRefNotice(snapshot: RolloutSnapshot, ref: string): SlackMessage {
  const tag = /^refs\/tags\/(.+)$/.exec(ref)?.[1];
  const name = tag ?? shortRef(ref);
  const what = `${tag === undefined ? 'branch' : 'tag'} ${code(safeText(name, 100))}`;
  const line = `:label: ${what} now points at this commit (${STATUS_EMOJI[snapshot.status]} ${snapshot.status} · ${countsLine(stateCounts(snapshot))})`;
  return {
    text: plain(
      `${snapshot.repo.fullName} ${shortRevision(snapshot)}: ${tag === undefined ? 'branch' : 'tag'} ${name}`,
    ),
    blocks: [section(line)],
  };
}

function commitLines(snapshot: RolloutSnapshot): string {
  const repo = link(snapshot.repo.webUrl, `*${escapeMrkdwn(snapshot.repo.fullName)}*`);
  const sha = link(snapshot.commitUrl, code(escapeMrkdwn(shortRevision(snapshot))));
  const ref = refsLabel(snapshot);
  const author = safeText(oneLine(snapshot.author), 80);
  const title = safeText(oneLine(snapshot.commitTitle), 200);
  const trigger = snapshot.trigger === 'webhook' ? '' : ` (${snapshot.trigger})`;
  const head = `${repo} ${sha} on ${ref} by ${author}${trigger}`;
  return title === '' ? head : `${head}\n>${title}`;
}

function countsLine(counts: StateCounts): string {
  const parts = APP_STATES.filter((state) => (counts[state] ?? 0) > 0).map(
    (state) => `${STATE_EMOJI[state]} ${counts[state]} ${state}`,
  );
  const n = appTotal(counts);
  const total = `${n} ${n === 1 ? 'app' : 'apps'}`;
  return parts.length === 0 ? total : `${total}: ${parts.join(' · ')}`;
}

function fallbackText(snapshot: RolloutSnapshot): string {
  const counts = stateCounts(snapshot);
  const summary = APP_STATES.filter((state) => (counts[state] ?? 0) > 0)
    .map((state) => `${counts[state]} ${state}`)
    .join(', ');
  const refs = [...new Set([snapshot.ref, ...(snapshot.refs ?? [])])].map(shortRef).join(', ');
  const head = `${snapshot.repo.fullName} ${shortRevision(snapshot)} (${refs}) by ${oneLine(snapshot.author)}: ${snapshot.status}`;
  return plain(summary === '' ? head : `${head} — ${summary}`);
}

/** Fallback text is read as mrkdwn too: escape it, mask credentials, keep it short. */
function plain(text: string): string {
  return escapeMrkdwn(truncate(redactCredentials(text), SLACK_LIMITS.fallbackText));
}
