import type { AppRecord } from '../rollouts/app-model.js';
import type { Rollout, WaveProgress } from '../rollouts/rollout-model.js';
import { ATTENTION_STATES, causeGroups, PAGE_STATE_ORDER } from './failure-groups.js';
import { type Html, html, safeHref } from './html.js';
import { timeTag } from './rollout-bits.js';
import { relativeTime } from './time-text.js';
import { verdictBadge } from './warned-section.js';

/** Cause groups shown, and apps named per group; the rest are counted. */
export const MAX_CAUSE_GROUPS = 50;
export const MAX_APPS_PER_CAUSE = 20;

type Urls = Readonly<Record<string, string>>;

/** Where an app deploys: its destination cluster, else the cluster that holds it. */
export function destinationOf(app: AppRecord): string {
  return app.destination ?? app.cluster;
}

/** Failures first, grouped by cause, with Argo CD's per-resource reason. */
export function attentionSection(apps: readonly AppRecord[]): Html {
  const groups = causeGroups(apps, ATTENTION_STATES);
  if (groups.length === 0) return html``;
  const total = groups.reduce((n, g) => n + g.apps.length, 0);
  return html`<section id="failures"><h2>Needs attention (${total})</h2>${groups
    .slice(0, MAX_CAUSE_GROUPS)
    .map(
      (g) => html`<div class="cause" data-cause-state="${g.state}" data-cause-apps="${g.apps.length}">
<h3><span class="state s-${g.state}">${g.state}</span> ${g.cause} <span class="meta">${g.state === 'blocked' ? 'blocks' : 'affects'} ${g.apps.length} ${g.apps.length === 1 ? 'app' : 'apps'}</span></h3>
<ul class="names">${g.apps.slice(0, MAX_APPS_PER_CAUSE).map((a) => html`<li>${a.cluster} ${a.namespace}/${a.name}${resourceNote(a)}</li>`)}${
        g.apps.length > MAX_APPS_PER_CAUSE
          ? html`<li class="meta">…and ${g.apps.length - MAX_APPS_PER_CAUSE} more</li>`
          : ''
      }</ul></div>`,
    )}${groups.length > MAX_CAUSE_GROUPS ? html`<p class="meta">…and ${groups.length - MAX_CAUSE_GROUPS} more causes.</p>` : ''}</section>`;
}

function resourceNote(app: AppRecord): Html {
  const failures = app.failures ?? [];
  if (failures.length === 0) return html``;
  const first = failures[0];
  const more = failures.length > 1 ? ` (+${failures.length - 1} more)` : '';
  return html` <span class="kind">${first?.kind} ${first?.namespace ? `${first.namespace}/` : ''}${first?.name}${more}</span>`;
}

/** Held apps by what holds them (their wave, a pause, a freeze, a sync window). */
export function heldSection(apps: readonly AppRecord[]): Html {
  const groups = causeGroups(apps, new Set(['held']));
  if (groups.length === 0) return html``;
  const total = groups.reduce((n, g) => n + g.apps.length, 0);
  return html`<section id="held"><h2>Held (${total})</h2><ul class="held">${groups
    .slice(0, MAX_CAUSE_GROUPS)
    .map(
      (g) =>
        html`<li data-held-apps="${g.apps.length}">${g.apps.length} ${g.apps.length === 1 ? 'app' : 'apps'}: ${g.cause}</li>`,
    )}</ul></section>`;
}

/**
 * Every app, by destination cluster, within its wave when there are waves (a row group per wave with its
 * state, times, soak end and halt reason). One pass to bucket, one sort per cluster.
 */
export function appGroups(rollout: Rollout, argocdUrls: Urls, now: Date): Html {
  const waves = rollout.waves ?? [];
  if (waves.length === 0) return destinations(rollout.apps, argocdUrls);
  const byWave = new Map<string, AppRecord[]>(waves.map((w) => [w.name, []]));
  const waveOfCluster = new Map<string, string>();
  for (const w of waves) for (const c of w.clusters) if (!waveOfCluster.has(c)) waveOfCluster.set(c, w.name);
  const other: AppRecord[] = [];
  for (const app of rollout.apps) {
    const name = app.wave ?? waveOfCluster.get(destinationOf(app));
    const list = name === undefined ? undefined : byWave.get(name);
    if (list === undefined) other.push(app);
    else list.push(app);
  }
  return html`${waves.map((w) => waveSection(w, byWave.get(w.name) ?? [], argocdUrls, now))}${
    other.length === 0
      ? ''
      : html`<section class="wave" data-wave=""><h2>no wave</h2>${destinations(other, argocdUrls)}</section>`
  }`;
}

function waveSection(wave: WaveProgress, apps: readonly AppRecord[], urls: Urls, now: Date): Html {
  const synced = apps.reduce((n, a) => n + (a.state === 'synced' ? 1 : 0), 0);
  const facts = [
    wave.openedAt === undefined
      ? ''
      : html`opened ${timeTag(wave.openedAt, relativeTime(wave.openedAt, now))}`,
    wave.doneAt === undefined ? '' : html`done ${timeTag(wave.doneAt, relativeTime(wave.doneAt, now))}`,
    wave.soakUntil === undefined || wave.state !== 'soaking'
      ? ''
      : html`soak ends ${timeTag(wave.soakUntil, relativeTime(wave.soakUntil, now))}`,
  ].filter((f) => f !== '');
  return html`<section class="wave" data-wave="${wave.name}" data-wave-state="${wave.state}">
<h2>wave ${wave.name} <span class="state w-${wave.state}">${wave.state}</span> <span class="meta">${synced}/${apps.length} synced${facts.map((f) => html` · ${f}`)}</span></h2>
${wave.reason === undefined ? '' : html`<p class="notice ${wave.state === 'halted' ? 'bad' : 'warn'} wave-reason">${wave.reason}</p>`}
${apps.length === 0 ? html`<p class="meta">No app of this commit deploys to ${wave.clusters.join(', ') || 'this wave'}.</p>` : destinations(apps, urls)}
</section>`;
}

function destinations(apps: readonly AppRecord[], urls: Urls): Html {
  if (apps.length === 0) return html``;
  const byDestination = new Map<string, AppRecord[]>();
  for (const app of apps) {
    const where = destinationOf(app);
    const list = byDestination.get(where);
    if (list === undefined) byDestination.set(where, [app]);
    else list.push(app);
  }
  const names = [...byDestination.keys()].sort();
  return html`<div class="dests">${names.map((name) => {
    const list = (byDestination.get(name) ?? []).sort(compareForPage);
    const synced = list.reduce((n, a) => n + (a.state === 'synced' ? 1 : 0), 0);
    return html`<div class="dest" data-destination="${name}"><h3>${name} <span class="meta">${synced}/${list.length} synced</span></h3><ul class="apps">${list.map(
      (app) => appLine(app, urls[app.cluster]),
    )}</ul></div>`;
  })}</div>`;
}

function compareForPage(a: AppRecord, b: AppRecord): number {
  const byState = PAGE_STATE_ORDER[a.state] - PAGE_STATE_ORDER[b.state];
  if (byState !== 0) return byState;
  const x = `${a.namespace}/${a.name}`;
  const y = `${b.namespace}/${b.name}`;
  return x < y ? -1 : x > y ? 1 : 0;
}

function appLine(app: AppRecord, argocdUrl: string | undefined): Html {
  const link =
    app.kind === 'Application' && argocdUrl !== undefined
      ? safeHref(
          `${argocdUrl}/applications/${encodeURIComponent(app.namespace)}/${encodeURIComponent(app.name)}`,
        )
      : undefined;
  const name = link === undefined ? html`${app.name}` : html`<a href="${link}">${app.name}</a>`;
  const history = `/ui/apps/${encodeURIComponent(app.cluster)}/${encodeURIComponent(app.namespace)}/${encodeURIComponent(app.name)}`;
  const problems = (app.secrets ?? []).filter((s) => s.outcome !== 'ok' && s.outcome !== 'not-rendered');
  // Informational: the preflight checked the files in Git because Argo CD could not render the app.
  const unrendered = (app.secrets ?? []).find((s) => s.outcome === 'not-rendered');
  const failures = app.failures ?? [];
  const where = `${app.kind === 'Application' ? '' : `${app.kind} `}${app.cluster}/${app.namespace}`;
  return html`<li class="app" data-app="${app.cluster}/${app.namespace}/${app.name}" data-kind="${app.kind}" data-state="${app.state}">
<span class="state s-${app.state}">${app.state}</span> ${name} <span class="kind">${where}</span>${verdictBadge(app)} <a class="meta" href="${history}" data-history>history</a>
${showMessage(app) ? html`<div class="msg">${app.message}</div>` : ''}${
  unrendered === undefined
    ? ''
    : html`<div class="msg meta" data-note="not-rendered">${unrendered.message ?? 'manifests not rendered'}</div>`
}${
  failures.length === 0 && problems.length === 0
    ? ''
    : html`<ul class="reasons">${failures.map(
        (f) => html`<li>${f.kind} ${f.namespace ? `${f.namespace}/` : ''}${f.name}: ${f.message}</li>`,
      )}${problems.map(
        (s) =>
          html`<li>${s.externalSecret} ${s.field}: ${s.outcome}${s.key ? ` (${s.key}${s.property ? ` ${s.property}` : ''})` : ''}${s.message ? `: ${s.message}` : ''}</li>`,
      )}</ul>`
}</li>`;
}

/** Argo CD's generic sync message says nothing the per-resource reasons below it do not say better. */
const GENERIC_SYNC_MESSAGE =
  /one or more (synchronization|sync) tasks (completed unsuccessfully|are not valid)/i;

function showMessage(app: AppRecord): boolean {
  if (app.message === undefined || app.message === '') return false;
  return (app.failures ?? []).length === 0 || !GENERIC_SYNC_MESSAGE.test(app.message);
}
