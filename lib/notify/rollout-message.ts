import { APP_STATES, type AppRecord, countStates } from '../rollouts/model.js';
import { appDetail, appLine, STATE_EMOJI, STATUS_EMOJI } from './app-lines.js';
import { context, divider, header, packSections, SLACK_LIMITS, section } from './blocks.js';
import { code, escapeMrkdwn, link, oneLine, redactCredentials, safeText, truncate } from './mrkdwn.js';
import { compareApps, FAILURE_STATES, isRolloutEnded } from './notice-plan.js';
import { clusterLines, refsLabel, timingLine } from './progress-lines.js';
import { releaseContext, releaseLines } from './release-lines.js';
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
  const listedApps = apps
    .filter((app) => (ended ? !QUIET.has(app.state) : NEEDS_A_PERSON.has(app.state)))
    .sort(compareApps);
  const timing = timingLine(snapshot, ended);
  const page = snapshot.pageUrl === undefined ? '' : ` · ${link(snapshot.pageUrl, 'rollout page')}`;
  const status = `${STATUS_EMOJI[snapshot.status]} *${snapshot.status}* · ${countsLine(apps)}${page}`;
  const top: SlackBlock[] = [
    header(
      `${STATUS_EMOJI[snapshot.status]} ${snapshot.repo.fullName} ${shortSha(snapshot.sha)}: ${snapshot.status}`,
    ),
    section(commitLines(snapshot)),
    section(timing === undefined ? status : `${status}\n${timing}`),
  ];
  const release = releaseLines(snapshot);
  if (release.length > 0) top.push(section(release.join('\n')));
  const clusters = clusterLines(apps);
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
    const more = listedApps.length - listed.length + packed.left;
    const what = ended ? 'not synced' : 'to look at';
    if (more > 0) blocks.push(context(`…and ${more} more ${more === 1 ? 'app' : 'apps'} ${what}`));
  }
  const unchecked = uncheckedLines(apps);
  if (unchecked.length > 0 && blocks.length < SLACK_LIMITS.blocksPerMessage) {
    blocks.push(context(unchecked.join('\n')));
  }
  return { text: fallbackText(snapshot), blocks };
}

/** Apps whose ExternalSecrets the preflight could not check on rendered manifests, with the reason. */
function uncheckedLines(apps: readonly AppRecord[]): string[] {
  const lines = apps.flatMap((app) => {
    const row = app.secrets?.find((c) => c.outcome === 'not-rendered');
    if (row === undefined) return [];
    const why = safeText(oneLine(row.message ?? 'manifests not rendered'), 200);
    return [
      `:warning: ${code(escapeMrkdwn(app.cluster))} ${escapeMrkdwn(`${app.namespace}/${app.name}`)}: ${why}`,
    ];
  });
  return lines.length <= 5
    ? lines
    : [...lines.slice(0, 5), `…and ${lines.length - 5} more not fully checked`];
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
  const prefix = options.standalone ? `${snapshot.repo.fullName} ${shortSha(snapshot.sha)}: ` : '';
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
  const prefix = options.standalone ? `${snapshot.repo.fullName} ${shortSha(snapshot.sha)}: ` : '';
  return { text: plain(`${prefix}${apps.length} more apps failed or were blocked`), blocks };
}

/** A thread reply: a ref (usually a tag) was pushed on this commit after its message was posted. */
export function renderRefNotice(snapshot: RolloutSnapshot, ref: string): SlackMessage {
  const tag = /^refs\/tags\/(.+)$/.exec(ref)?.[1];
  const name = tag ?? shortRef(ref);
  const what = `${tag === undefined ? 'branch' : 'tag'} ${code(safeText(name, 100))}`;
  const line = `:label: ${what} now points at this commit (${STATUS_EMOJI[snapshot.status]} ${snapshot.status} · ${countsLine(snapshot.apps)})`;
  return {
    text: plain(
      `${snapshot.repo.fullName} ${shortSha(snapshot.sha)}: ${tag === undefined ? 'branch' : 'tag'} ${name}`,
    ),
    blocks: [section(line)],
  };
}

function commitLines(snapshot: RolloutSnapshot): string {
  const repo = link(snapshot.repo.webUrl, `*${escapeMrkdwn(snapshot.repo.fullName)}*`);
  const sha = link(snapshot.commitUrl, code(escapeMrkdwn(shortSha(snapshot.sha))));
  const ref = refsLabel(snapshot);
  const author = safeText(oneLine(snapshot.author), 80);
  const title = safeText(oneLine(snapshot.commitTitle), 200);
  const trigger = snapshot.trigger === 'webhook' ? '' : ` (${snapshot.trigger})`;
  const head = `${repo} ${sha} on ${ref} by ${author}${trigger}`;
  return title === '' ? head : `${head}\n>${title}`;
}

function countsLine(apps: readonly AppRecord[]): string {
  const counts = countStates(apps.map((app) => app.state));
  const parts = APP_STATES.filter((state) => (counts[state] ?? 0) > 0).map(
    (state) => `${STATE_EMOJI[state]} ${counts[state]} ${state}`,
  );
  const total = `${apps.length} ${apps.length === 1 ? 'app' : 'apps'}`;
  return parts.length === 0 ? total : `${total}: ${parts.join(' · ')}`;
}

function fallbackText(snapshot: RolloutSnapshot): string {
  const counts = countStates(snapshot.apps.map((app) => app.state));
  const summary = APP_STATES.filter((state) => (counts[state] ?? 0) > 0)
    .map((state) => `${counts[state]} ${state}`)
    .join(', ');
  const refs = [...new Set([snapshot.ref, ...(snapshot.refs ?? [])])].map(shortRef).join(', ');
  const head = `${snapshot.repo.fullName} ${shortSha(snapshot.sha)} (${refs}) by ${oneLine(snapshot.author)}: ${snapshot.status}`;
  return plain(summary === '' ? head : `${head} — ${summary}`);
}

/** Fallback text is read as mrkdwn too: escape it, mask credentials, keep it short. */
function plain(text: string): string {
  return escapeMrkdwn(truncate(redactCredentials(text), SLACK_LIMITS.fallbackText));
}
