import { type AppRecord, warnReasonsOf } from '../rollouts/app-model.js';
import { type Html, html } from './html.js';

/** Warned apps named on the page; the rest are counted. */
export const MAX_WARNED_APPS = 100;

/**
 * Apps the preflight let through with a warning (verdict `warn`): refreshed, but Argo CD may not sync them
 * as hoped (a Helm chart not rendered, a manifest that does not parse). Each with its reasons.
 */
export function warnedSection(apps: readonly AppRecord[]): Html {
  const warned = apps.flatMap((app) => {
    const reasons = warnReasonsOf(app);
    return reasons.length === 0 ? [] : [{ app, reasons }];
  });
  if (warned.length === 0) return html``;
  return html`<section id="warned"><h2>Preflight warnings (${warned.length})</h2><ul class="warned">${warned
    .slice(0, MAX_WARNED_APPS)
    .map(
      ({ app, reasons }) =>
        html`<li data-warned="${app.cluster}/${app.namespace}/${app.name}"><span class="verdict v-warn">warn</span> ${app.cluster} ${app.namespace}/${app.name} <span class="state s-${app.state}">${app.state}</span><ul class="warn-reasons">${reasons.map((r) => html`<li>${r}</li>`)}</ul></li>`,
    )}${
    warned.length > MAX_WARNED_APPS
      ? html`<li class="meta">…and ${warned.length - MAX_WARNED_APPS} more</li>`
      : ''
  }</ul></section>`;
}

/** The verdict on an app's own line: `warn` (a block shows as the state `blocked`). */
export function verdictBadge(app: AppRecord): Html {
  return warnReasonsOf(app).length === 0
    ? html``
    : html` <span class="verdict v-warn" data-verdict="warn">preflight warn</span>`;
}
