import type { AppRecord, DecisionRecord } from '../rollouts/app-model.js';
import type { OperatorAction, Rollout } from '../rollouts/rollout-model.js';
import { APP_STATES, type AppState, countStates } from '../rollouts/state-model.js';
import { type Html, html } from './html.js';
import { timeTag } from './rollout-bits.js';
import { principalText, relativeTime } from './time-text.js';

/** Rows of the "not refreshed" table; the rest are counted. */
export const MAX_DECISION_ROWS = 500;

/** `12 synced · 3 held · 1 failed`, one badge per state present, each a link to the page filtered on it. */
export function countsBar(apps: readonly AppRecord[], selected?: AppState): Html {
  const counts = countStates(apps.map((a) => a.state));
  const present = APP_STATES.filter((s) => (counts[s] ?? 0) > 0);
  return html`<ul class="counts" data-total="${apps.length}"><li>${selected === undefined ? html`${apps.length} ${apps.length === 1 ? 'app' : 'apps'}` : html`<a href="?" data-state-filter="">all ${apps.length} ${apps.length === 1 ? 'app' : 'apps'}</a>`}</li>${present.map(
    (s) =>
      html`<li class="s-${s}${s === selected ? ' selected' : ''}" data-count-state="${s}"><a href="?${new URLSearchParams({ state: s }).toString()}">${counts[s]} ${s}</a></li>`,
  )}</ul>`;
}

/** Why a halted, paused or aborted rollout stands where it stands. */
export function controlNotice(rollout: Rollout, now: Date): Html {
  if (rollout.status === 'halted') {
    const wave = rollout.waves?.find((w) => w.state === 'halted');
    const action = lastAction(rollout, 'halt');
    const why = wave?.reason ?? action?.detail;
    return html`<p class="notice bad" data-control="halted">Halted${wave ? html` at wave <b>${wave.name}</b>` : ''}${why ? `: ${why}` : ''}${action ? html` (${by(action, now)})` : ''}. <code>resume</code> continues (optionally skipping the failed apps), <code>abort</code> ends it.</p>`;
  }
  if (rollout.status === 'paused') {
    const action = lastAction(rollout, 'pause');
    return html`<p class="notice warn" data-control="paused">Paused${action ? html` ${by(action, now)}${action.detail ? `: ${action.detail}` : ''}` : ''}: no wave opens and nothing is refreshed until <code>resume</code>.</p>`;
  }
  if (rollout.status === 'aborted') {
    const action = lastAction(rollout, 'abort');
    return html`<p class="notice bad" data-control="aborted">Aborted${action ? html` ${by(action, now)}${action.detail ? `: ${action.detail}` : ''}` : ''}: apps not yet refreshed ended <code>aborted</code>.</p>`;
  }
  return html``;
}

function lastAction(rollout: Rollout, name: OperatorAction['action']): OperatorAction | undefined {
  const actions = rollout.actions ?? [];
  for (let i = actions.length - 1; i >= 0; i--) if (actions[i]?.action === name) return actions[i];
  return undefined;
}

function by(action: OperatorAction, now: Date): Html {
  return html`by <span class="who" title="${action.by}">${principalText(action.by)}</span> ${timeTag(action.at, relativeTime(action.at, now))}`;
}

/** Argo CD instances that poll Git themselves: the page says a hold there is not guaranteed. */
export function ungatedNotice(rollout: Rollout): Html {
  const ungated = rollout.ungated ?? [];
  if (ungated.length === 0) return html``;
  return html`<div class="notice warn" data-ungated="${ungated.length}"><b>Not gated:</b> ${ungated.map(
    (u, i) =>
      html`${i === 0 ? '' : '; '}<span title="${u.reason}">Argo CD on ${u.cluster} (${u.namespace}) polls Git itself</span>`,
  )}. A hold or a wave there is advisory: that instance may move its apps to this commit on its own.</div>`;
}

/** Clusters fan-out could not read (each counts as an `error`). */
export function clusterErrorsNotice(rollout: Rollout): Html {
  const errors = Object.entries(rollout.clusterErrors ?? {});
  if (errors.length === 0) return html``;
  return html`<ul class="notice bad cluster-errors">${errors.map(
    ([cluster, message]) =>
      html`<li data-cluster-error="${cluster}">cluster ${cluster} unreadable: ${message}</li>`,
  )}</ul>`;
}

/** Operators' actions, oldest first: who, when, what. */
export function actionsSection(rollout: Rollout, now: Date): Html {
  const actions = rollout.actions ?? [];
  if (actions.length === 0) return html``;
  return html`<section id="actions"><h2>Actions</h2><table class="actions">
<thead><tr><th>when</th><th>who</th><th>action</th><th>detail</th></tr></thead>
<tbody>${actions.map(
    (a) =>
      html`<tr data-action="${a.action}"><td>${timeTag(a.at, relativeTime(a.at, now))}</td><td title="${a.by}">${principalText(a.by)}</td><td>${a.action}</td><td>${a.detail ?? ''}</td></tr>`,
  )}</tbody></table></section>`;
}

/**
 * The matched objects the push did not refresh and that have no app record of their own (path and
 * revision misses, …), with fan-out's decision; bounded, the rest counted.
 */
export function notRefreshedSection(
  apps: readonly AppRecord[],
  decisions: readonly DecisionRecord[] | undefined,
): Html {
  if (decisions === undefined) return html``;
  const recorded = new Set(apps.map((a) => `${a.cluster}/${a.kind}/${a.namespace}/${a.name}`));
  const misses = decisions.filter(
    (d) =>
      d.decision !== 'refreshed' &&
      d.decision !== 'refreshed-unknown-files' &&
      !recorded.has(`${d.cluster}/${d.kind}/${d.namespace}/${d.name}`),
  );
  if (misses.length === 0) return html``;
  const byDecision = countStrings(misses.map((d) => d.decision));
  const shown = misses.slice(0, MAX_DECISION_ROWS);
  return html`<section id="not-refreshed"><h2>Not refreshed (${misses.length})</h2>
<p class="meta">Matched by repository, left alone by this push: ${[...byDecision].map(([d, n], i) => html`${i === 0 ? '' : ', '}${n} <code>${d}</code>`)}.</p>
<table class="decisions"><thead><tr><th>cluster</th><th>object</th><th>decision</th><th>detail</th></tr></thead>
<tbody>${shown.map(
    (d) =>
      html`<tr data-decision="${d.decision}" data-object="${d.cluster}/${d.namespace}/${d.name}"><td>${d.cluster}</td><td>${d.namespace}/${d.name}${d.kind === 'Application' ? '' : html` <span class="kind">${d.kind}</span>`}</td><td><code>${d.decision}</code></td><td>${d.detail ?? ''}</td></tr>`,
  )}</tbody></table>${misses.length > shown.length ? html`<p class="meta">…and ${misses.length - shown.length} more.</p>` : ''}</section>`;
}

function countStrings(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return counts;
}
