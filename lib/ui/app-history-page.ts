import type { HistoryEntry } from '../rollouts/ports/rollout-reader.js';
import { html } from './html.js';
import { renderPage } from './layout.js';
import { shortSha, timeTag } from './rollout-bits.js';
import { relativeTime, spanText } from './time-text.js';

export interface AppHistoryPageOptions {
  readonly nonce: string;
  readonly fragment?: boolean;
  /** The next page's query string (`cursor=…`), when there is one. */
  readonly nextQuery?: string;
  /** The app's page in Argo CD (fleet `argocdUrl`), when the fleet has one for its cluster. */
  readonly argocdUrl?: string;
  readonly now?: Date;
}

export interface AppRef {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
}

/** One app across the rollouts that touched it, newest first: what each commit did to it and why. */
export function renderAppHistoryPage(
  app: AppRef,
  items: readonly HistoryEntry[],
  options: AppHistoryPageOptions,
): string {
  const now = options.now ?? new Date();
  const argocd =
    options.argocdUrl === undefined
      ? ''
      : html` <a class="meta" href="${`${options.argocdUrl}/applications/${encodeURIComponent(app.namespace)}/${encodeURIComponent(app.name)}`}">open in Argo CD</a>`;
  const body = html`<h1>${app.name} <span class="meta">${app.cluster}/${app.namespace}</span>${argocd}</h1>
${
  items.length === 0
    ? html`<p>No rollout has touched this app yet.</p>`
    : html`<table class="rollouts history">
<thead><tr><th>commit</th><th>state</th><th>repository</th><th>ref</th><th>trigger</th><th>received</th><th>took</th><th>why</th></tr></thead>
<tbody>${items.map((entry) => {
        const took = spanText(entry.refreshedAt ?? entry.receivedAt, entry.finishedAt, now);
        return html`<tr data-sha="${entry.sha}" data-state="${entry.state}">
<td><a class="sha" href="/ui/rollouts/${encodeURIComponent(entry.sha)}">${shortSha(entry.sha)}</a></td>
<td><span class="state s-${entry.state}">${entry.state}</span></td>
<td>${entry.repo}</td>
<td>${entry.ref}</td>
<td>${entry.trigger}</td>
<td class="meta">${timeTag(entry.receivedAt, relativeTime(entry.receivedAt, now))}</td>
<td class="meta">${entry.finishedAt === undefined ? '' : took}</td>
<td>${reasonOf(entry)}</td>
</tr>`;
      })}</tbody>
</table>`
}
${options.nextQuery === undefined ? '' : html`<p><a href="?${options.nextQuery}">older rollouts</a></p>`}`;
  return renderPage({
    title: `${app.name} · history · gitops-sync`,
    nonce: options.nonce,
    fragment: options.fragment === true,
    running: false,
    body,
  });
}

/** The first thing a person wants to know about a failed entry: Argo CD's per-resource reason, else the message. */
function reasonOf(entry: HistoryEntry): string {
  const failure = entry.failures?.[0];
  if (failure !== undefined) return `${failure.kind} ${failure.name}: ${failure.message}`;
  const problem = (entry.secrets ?? []).find((s) => s.outcome !== 'ok' && s.outcome !== 'not-rendered');
  if (problem !== undefined)
    return `${problem.externalSecret}: ${problem.outcome}${problem.key ? ` (${problem.key})` : ''}`;
  return entry.message ?? entry.decision ?? '';
}
