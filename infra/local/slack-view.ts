import { compactText } from '../../lib/notify/compact-text.js';
import type { ReceivedMessage, SlackReceiver } from './slack-receiver.js';

/** Where the local stack serves what its Slack double received (`GET`; `.txt` for plain text). */
export const SLACK_VIEW_PATH = '/_local/slack';

export interface ViewAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

interface Thread {
  readonly root: ReceivedMessage;
  readonly replies: readonly ReceivedMessage[];
}

/** Newest thread first (by its latest message); replies under their root, oldest first, as Slack shows them. */
export function slackThreads(receiver: Pick<SlackReceiver, 'messages' | 'replies'>): Thread[] {
  const threads = receiver.messages().map((root) => ({ root, replies: receiver.replies(root.ts) }));
  const latest = (t: Thread) => t.replies.at(-1)?.ts ?? t.root.ts;
  // Slack timestamps are `<seconds>.<6-digit counter>`: as strings of one length they sort as they read.
  return threads.sort((a, b) => (latest(a) < latest(b) ? 1 : latest(a) > latest(b) ? -1 : 0));
}

/** The answer to `GET /_local/slack[.txt]`, or undefined for any other request (the API's routes). */
export function slackViewAnswer(
  method: string,
  path: string,
  receiver: Pick<SlackReceiver, 'messages' | 'replies'> | undefined,
): ViewAnswer | undefined {
  if (path !== SLACK_VIEW_PATH && path !== `${SLACK_VIEW_PATH}.txt`) return undefined;
  if (method !== 'GET' && method !== 'HEAD')
    return { status: 405, contentType: 'text/plain', body: 'GET only\n' };
  if (receiver === undefined) {
    const body =
      'Slack is configured (SLACK_BOT_TOKEN, SLACK_WEBHOOK_URL or SLACK_SECRET_ARN): messages go there.\n';
    return { status: 404, contentType: 'text/plain; charset=utf-8', body };
  }
  const threads = slackThreads(receiver);
  return path.endsWith('.txt')
    ? { status: 200, contentType: 'text/plain; charset=utf-8', body: asText(threads) }
    : { status: 200, contentType: 'text/html; charset=utf-8', body: asHtml(threads) };
}

function asText(threads: readonly Thread[]): string {
  if (threads.length === 0) return '(no Slack messages yet)\n';
  const lines = threads.flatMap(({ root, replies }) => [
    `== ${root.channel} ${root.ts}${root.edits > 0 ? ` (edited ${root.edits}x)` : ''}`,
    ...compactText(root).map((l) => `  ${l}`),
    ...replies.flatMap((reply) => [`  -- reply ${reply.ts}`, ...compactText(reply).map((l) => `     ${l}`)]),
    '',
  ]);
  return `${lines.join('\n')}\n`;
}

function asHtml(threads: readonly Thread[]): string {
  const message = (m: ReceivedMessage, cls: string) =>
    `<div class="${cls}"><div class="meta">${escapeHtml(m.channel)} · ${escapeHtml(m.ts)}${m.edits > 0 ? ` · edited ${m.edits}×` : ''}</div><pre>${escapeHtml(compactText(m).join('\n'))}</pre></div>`;
  const body =
    threads.length === 0
      ? '<p>No Slack messages yet.</p>'
      : threads
          .map(
            ({ root, replies }) =>
              `<section>${message(root, 'root')}${replies.map((r) => message(r, 'reply')).join('')}</section>`,
          )
          .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Slack (local double)</title>
<meta http-equiv="refresh" content="5">
<style>body{font:14px system-ui,sans-serif;margin:1.5em;max-width:70em}section{border:1px solid #ccc;border-radius:6px;margin:0 0 1em;padding:.5em 1em}.reply{margin-left:2em;border-left:3px solid #ddd;padding-left:.8em}.meta{color:#666;font-size:12px}pre{white-space:pre-wrap;margin:.3em 0}</style>
</head><body><h1>Slack messages the local stack sent</h1><p>Newest thread first; replies under their message. Refreshes every 5 s.</p>
${body}
</body></html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
