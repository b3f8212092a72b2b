import { Html, html } from './html.js';
import { PAGE_STYLE } from './style.js';

/** How often a page showing a running rollout fetches itself again. */
export const REFRESH_MS = 2000;

/**
 * Re-fetches the page's `#live` fragment (same origin, with cookies, so it works behind the bearer cookie and any signing
 * proxy in front of the IAM-authorised API) and swaps in the new `#live` element until it stops running.
 * Only server-rendered, escaped HTML is inserted; DOMParser never runs scripts.
 */
const REFRESH_SCRIPT = `(function () {
  var live = document.getElementById('live');
  if (!live || live.getAttribute('data-running') !== 'true') return;
  var busy = false;
  var timer = setInterval(function () {
    if (busy) return;
    busy = true;
    fetch(location.pathname + location.search, {
      credentials: 'same-origin',
      headers: { accept: 'text/html', 'x-ui-fragment': 'live' },
    })
      .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.text(); })
      .then(function (text) {
        var next = new DOMParser().parseFromString(text, 'text/html').getElementById('live');
        if (!next) return;
        live.replaceWith(next);
        live = next;
        document.getElementById('stale').hidden = true;
        if (next.getAttribute('data-running') !== 'true') clearInterval(timer);
      })
      .catch(function () { document.getElementById('stale').hidden = false; })
      .finally(function () { busy = false; });
  }, ${REFRESH_MS});
})();`;

export interface PageParts {
  readonly title: string;
  readonly nonce: string;
  /** Keep refreshing while true (the `#live` element says so after each refresh). */
  readonly running: boolean;
  readonly body: Html;
  /** Only the `#live` element: what the refresh script asks for (no style or script to re-evaluate). */
  readonly fragment?: boolean;
}

/** The whole document: inline style and script under a per-response nonce, no external assets. */
export function renderPage(parts: PageParts): string {
  const live = html`<main id="live" data-running="${parts.running ? 'true' : 'false'}">
${parts.body}
</main>`;
  if (parts.fragment === true) return live.text;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${parts.title}</title>
<link rel="icon" href="data:,">
${parts.running ? html`<noscript><meta http-equiv="refresh" content="5"></noscript>` : ''}
<style nonce="${parts.nonce}">${new Html(PAGE_STYLE)}</style>
</head>
<body>
<header><a href="/ui/">gitops-sync</a> <span id="stale" class="stale" hidden>refresh failed; retrying</span></header>
${live}
<script nonce="${parts.nonce}">${new Html(REFRESH_SCRIPT)}</script>
</body>
</html>
`.text;
}
