import type { RolloutSummary } from '../rollouts/model.js';
import { html } from './html.js';
import { renderPage } from './layout.js';
import { isRunning, shortSha, statusBadge } from './rollout-bits.js';

export interface RolloutsPageOptions {
  readonly nonce: string;
  /** Only the part the refresh script swaps in. */
  readonly fragment?: boolean;
  /** The next page's query string (`cursor=…`, with the filters), when there is one. */
  readonly nextQuery?: string;
}

/** The latest rollouts, newest first, each linking to its grid; refreshes while any of them runs. */
export function renderRolloutsPage(items: readonly RolloutSummary[], options: RolloutsPageOptions): string {
  const body = html`<h1>Latest rollouts</h1>
${
  items.length === 0
    ? html`<p>No rollout yet.</p>`
    : html`<table class="rollouts">
<thead><tr><th>commit</th><th>status</th><th>repository</th><th>refs</th><th>title</th><th>apps</th><th>received</th></tr></thead>
<tbody>${items.map(
        (r) => html`<tr data-sha="${r.sha}">
<td><a class="sha" href="/ui/rollouts/${encodeURIComponent(r.sha)}">${shortSha(r.sha)}</a></td>
<td>${statusBadge(r.status)}</td>
<td>${r.repo}</td>
<td>${(r.refs ?? [r.ref]).join(', ')}</td>
<td>${r.commitTitle ?? ''}</td>
<td class="meta">${countsText(r.counts)}</td>
<td class="meta">${r.receivedAt}</td>
</tr>`,
      )}</tbody>
</table>`
}
${options.nextQuery === undefined ? '' : html`<p><a href="/ui/?${options.nextQuery}">older rollouts</a></p>`}`;
  return renderPage({
    title: 'rollouts · gitops-sync',
    nonce: options.nonce,
    fragment: options.fragment === true,
    running: items.some((r) => isRunning(r.status)),
    body,
  });
}

function countsText(counts: RolloutSummary['counts']): string {
  return Object.entries(counts ?? {})
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([state, n]) => `${n} ${state}`)
    .join(', ');
}
