import type { AppRecord, Rollout } from '../rollouts/model.js';
import { type Html, html, safeHref } from './html.js';
import { renderPage } from './layout.js';
import { isRunning, shortSha, statusBadge } from './rollout-bits.js';

export interface RolloutPageOptions {
  readonly nonce: string;
  /** Only the part the refresh script swaps in. */
  readonly fragment?: boolean;
  /** Argo CD UI base URL per cluster name (fleet `argocdUrl`). */
  readonly argocdUrls: Readonly<Record<string, string>>;
  readonly now: Date;
}

/**
 * One commit across the fleet: a row for the commit, a column per cluster, each cell the apps that
 * cluster manages with their state, the failure reasons and a link to Argo CD.
 */
export function renderRolloutPage(rollout: Rollout, options: RolloutPageOptions): string {
  const byCluster = new Map<string, AppRecord[]>();
  for (const app of rollout.apps) {
    const list = byCluster.get(app.cluster);
    if (list === undefined) byCluster.set(app.cluster, [app]);
    else list.push(app);
  }
  const clusterErrors = rollout.clusterErrors ?? {};
  for (const cluster of Object.keys(clusterErrors)) if (!byCluster.has(cluster)) byCluster.set(cluster, []);
  const clusters = [...byCluster.keys()].sort();
  const commitLink = safeHref(rollout.commitUrl);
  const body = html`<h1>${rollout.repo} <span class="sha">${shortSha(rollout.sha)}</span> ${statusBadge(rollout.status)}</h1>
<dl class="facts">
<dt>commit</dt><dd>${commitLink ? html`<a class="sha" href="${commitLink}">${rollout.sha}</a>` : html`<span class="sha">${rollout.sha}</span>`}</dd>
<dt>title</dt><dd>${rollout.commitTitle ?? ''}</dd>
<dt>author</dt><dd>${rollout.author ?? 'unknown'}</dd>
<dt>refs</dt><dd>${(rollout.refs ?? [rollout.ref]).join(', ')}</dd>
<dt>trigger</dt><dd>${rollout.trigger}${rollout.missedWebhook ? ' (missed webhook)' : ''}</dd>
<dt>received</dt><dd>${rollout.receivedAt}</dd>
<dt>elapsed</dt><dd>${elapsed(rollout, options.now)}</dd>
</dl>
${
  clusters.length === 0
    ? html`<p>No app of the fleet matched this commit.</p>`
    : html`<table class="grid">
<thead><tr><th>commit</th>${clusters.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
<tbody><tr><th scope="row" class="sha">${shortSha(rollout.sha)}</th>${clusters.map(
        (cluster) =>
          html`<td data-cluster="${cluster}">${cell(cluster, byCluster.get(cluster) ?? [], clusterErrors[cluster], options)}</td>`,
      )}</tr></tbody>
</table>`
}`;
  return renderPage({
    title: `${shortSha(rollout.sha)} ${rollout.status} · gitops-sync`,
    nonce: options.nonce,
    fragment: options.fragment === true,
    running: isRunning(rollout.status),
    body,
  });
}

function cell(
  cluster: string,
  apps: readonly AppRecord[],
  error: string | undefined,
  options: RolloutPageOptions,
): Html {
  const sorted = [...apps].sort((a, b) =>
    `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`),
  );
  return html`${error === undefined ? '' : html`<p class="s-error">cluster unreadable: ${error}</p>`}<ul class="apps">${sorted.map(
    (app) => appLine(app, options.argocdUrls[cluster]),
  )}</ul>`;
}

/** SPEC: each app also carries `destination`, the fleet cluster it deploys to (when the fleet has it). */
type PageApp = AppRecord & { readonly destination?: string };

function appLine(app: PageApp, argocdUrl: string | undefined): Html {
  const link =
    app.kind === 'Application' && argocdUrl !== undefined
      ? safeHref(
          `${argocdUrl}/applications/${encodeURIComponent(app.namespace)}/${encodeURIComponent(app.name)}`,
        )
      : undefined;
  const name = link === undefined ? html`${app.name}` : html`<a href="${link}">${app.name}</a>`;
  const problems = (app.secrets ?? []).filter((s) => s.outcome !== 'ok');
  return html`<li class="app" data-app="${app.cluster}/${app.namespace}/${app.name}" data-kind="${app.kind}" data-state="${app.state}">
<span class="state s-${app.state}">${app.state}</span> ${name} <span class="kind">${app.kind === 'Application' ? '' : app.kind} ${app.namespace}${app.destination ? ` → ${app.destination}` : ''}</span>
${app.message ? html`<div class="msg">${app.message}</div>` : ''}${
  problems.length === 0
    ? ''
    : html`<ul class="reasons">${problems.map(
        (s) =>
          html`<li>${s.externalSecret} ${s.field}: ${s.outcome}${s.key ? ` (${s.key}${s.property ? ` ${s.property}` : ''})` : ''}${s.message ? `: ${s.message}` : ''}</li>`,
      )}</ul>`
}</li>`;
}

function elapsed(rollout: Rollout, now: Date): string {
  const end = rollout.finishedAt === undefined ? now.getTime() : Date.parse(rollout.finishedAt);
  const seconds = Math.round((end - Date.parse(rollout.receivedAt)) / 1000);
  if (!Number.isFinite(seconds) || seconds < 0) return '';
  const text = seconds < 120 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return rollout.finishedAt === undefined ? `${text} (running)` : text;
}
