import type { RolloutSummary } from '../rollouts/rollout-model.js';
import { html } from './html.js';
import { renderPage } from './layout.js';
import { isRunning, shortRevision, statusBadge, timeTag } from './rollout-bits.js';
import { relativeTime, spanText } from './time-text.js';

export interface RolloutsPageOptions {
  readonly nonce: string;
  /** Only the part the refresh script swaps in. */
  readonly fragment?: boolean;
  /** The next page's query string (`cursor=…`, with the filters), when there is one. */
  readonly nextQuery?: string;
  /** The repository the list is filtered on (`?repo=`). */
  readonly repo?: string;
  readonly now?: Date;
}

/** The latest rollouts, newest first, each linking to its page; refreshes while any of them runs. */
export function renderRolloutsPage(items: readonly RolloutSummary[], options: RolloutsPageOptions): string {
  const now = options.now ?? new Date();
  const body = html`<h1>Latest rollouts${options.repo === undefined ? '' : html` of <span data-repo-filter="${options.repo}">${options.repo}</span>`}</h1>
<form class="filter" method="get" action="/ui/"><label>repository <input name="repo" value="${options.repo ?? ''}" placeholder="org/gitops" maxlength="256"></label> <button type="submit">filter</button>${options.repo === undefined ? '' : html` <a href="/ui/">all repositories</a>`}</form>
${
  items.length === 0
    ? html`<p>No rollout${options.repo === undefined ? '' : ' of this repository'} yet.</p>`
    : html`<table class="rollouts">
<thead><tr><th>commit / digest</th><th>status</th><th>repository</th><th>refs / tags</th><th>title</th><th>author</th><th>apps</th><th>received</th><th>took</th></tr></thead>
<tbody>${items.map((r) => {
        const took = spanText(r.receivedAt, r.finishedAt, now);
        return html`<tr data-sha="${r.sha}">
<td><a class="sha" href="/ui/rollouts/${encodeURIComponent(r.sha)}">${shortRevision(r.sha, r.trigger)}</a></td>
<td>${statusBadge(r.status)}</td>
<td><a href="/ui/?${new URLSearchParams({ repo: r.repo }).toString()}">${r.repo}</a></td>
<td>${(r.refs ?? [r.ref]).join(', ')}</td>
<td>${r.commitTitle ?? ''}</td>
<td>${r.author ?? ''}</td>
<td class="meta">${countsText(r.counts)}</td>
<td class="meta">${timeTag(r.receivedAt, relativeTime(r.receivedAt, now))}</td>
<td class="meta" data-took>${took === '' ? '' : r.finishedAt === undefined ? `${took} so far` : took}</td>
</tr>`;
      })}</tbody>
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
