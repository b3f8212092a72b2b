import type { DecisionRecord } from '../rollouts/app-model.js';
import type { Rollout } from '../rollouts/rollout-model.js';
import type { AppState } from '../rollouts/state-model.js';
import { appGroups, attentionSection, heldSection } from './app-groups.js';
import { html, safeHref } from './html.js';
import { renderPage } from './layout.js';
import { isRunning, revisionNoun, shortRevision, statusBadge, timeTag } from './rollout-bits.js';
import {
  actionsSection,
  clusterErrorsNotice,
  controlNotice,
  countsBar,
  notRefreshedSection,
  ungatedNotice,
} from './rollout-notices.js';
import { relativeTime, spanText } from './time-text.js';
import { warnedSection } from './warned-section.js';

export interface RolloutPageOptions {
  readonly nonce: string;
  /** Only the part the refresh script swaps in. */
  readonly fragment?: boolean;
  /** Argo CD UI base URL per cluster name (fleet `argocdUrl`). */
  readonly argocdUrls: Readonly<Record<string, string>>;
  readonly now: Date;
  /** Fan-out's per-object decisions: the matched objects the push did not refresh are listed from them. */
  readonly decisions?: readonly DecisionRecord[];
  /** `?state=`: only the apps in this state are listed by destination (counts and failures stay whole). */
  readonly state?: AppState;
}

/**
 * One commit across the fleet: what holds or stopped it, the counts per state, the failures grouped by
 * cause, the held apps by what holds them, then every app by wave and destination cluster, the objects
 * not refreshed and the operators' actions. Built as strings in a few linear passes (5,000 apps are fine).
 */
export function renderRolloutPage(rollout: Rollout, options: RolloutPageOptions): string {
  const { now } = options;
  const commitLink = safeHref(rollout.commitUrl);
  const running = isRunning(rollout.status);
  const took = spanText(rollout.receivedAt, rollout.finishedAt, now);
  const { state } = options;
  const shown =
    state === undefined ? rollout : { ...rollout, apps: rollout.apps.filter((a) => a.state === state) };
  const registry = rollout.trigger === 'registry';
  const revision = registry ? `sha256:${rollout.sha}` : rollout.sha;
  const body = html`<h1>${rollout.repo} <span class="sha">${shortRevision(rollout.sha, rollout.trigger)}</span> ${statusBadge(rollout.status)}</h1>
${controlNotice(rollout, now)}${ungatedNotice(rollout)}${clusterErrorsNotice(rollout)}
<dl class="facts">
<dt>${revisionNoun(rollout.trigger)}</dt><dd>${commitLink ? html`<a class="sha" href="${commitLink}">${revision}</a>` : html`<span class="sha">${revision}</span>`}</dd>
<dt>title</dt><dd>${rollout.commitTitle ?? ''}</dd>
<dt>author</dt><dd>${rollout.author ?? 'unknown'}</dd>
<dt>${registry ? 'tags' : 'refs'}</dt><dd>${(rollout.refs ?? [rollout.ref]).join(', ')}</dd>
<dt>trigger</dt><dd>${rollout.trigger}${rollout.missedWebhook ? ' (missed webhook)' : ''}</dd>
<dt>received</dt><dd>${timeTag(rollout.receivedAt, relativeTime(rollout.receivedAt, now))}</dd>
<dt>elapsed</dt><dd>${took === '' ? '' : rollout.finishedAt === undefined ? `${took} (running)` : took}</dd>
</dl>
${countsBar(rollout.apps, state)}
${
  rollout.apps.length === 0 && Object.keys(rollout.clusterErrors ?? {}).length === 0
    ? html`<p>No app of the fleet matched this commit.</p>`
    : html`${attentionSection(rollout.apps)}${warnedSection(rollout.apps)}${heldSection(rollout.apps)}<section id="apps"><h2>${state === undefined ? 'Apps' : html`<span data-state-shown="${state}">${shown.apps.length} ${state}</span> apps`} by ${rollout.waves?.length ? 'wave and ' : ''}destination${state === undefined ? '' : html` <a class="meta" href="?">show all</a>`}</h2>${appGroups(shown, options.argocdUrls, now)}</section>`
}
${notRefreshedSection(rollout.apps, options.decisions)}
${actionsSection(rollout, now)}`;
  return renderPage({
    title: `${shortRevision(rollout.sha, rollout.trigger)} ${rollout.status} · gitops-sync`,
    nonce: options.nonce,
    fragment: options.fragment === true,
    running,
    body,
  });
}
