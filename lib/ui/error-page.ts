import { html } from './html.js';
import { renderPage } from './layout.js';

/** A page for what the caller asked wrongly or for what is not there (an unknown commit), never JSON. */
export function renderErrorPage(
  statusCode: number,
  message: string,
  options: { readonly nonce: string; readonly fragment?: boolean },
): string {
  const title = statusCode === 404 ? 'Not found' : statusCode === 400 ? 'Bad request' : 'Error';
  return renderPage({
    title: `${statusCode} ${title} · gitops-sync`,
    nonce: options.nonce,
    fragment: options.fragment === true,
    running: false,
    body: html`<h1 data-error="${statusCode}">${title}</h1><p>${message}</p><p><a href="/ui/">Latest rollouts</a></p>`,
  });
}
