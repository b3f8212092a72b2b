import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compactText } from '../../lib/notify/compact-text.js';

export interface SlackReceiverOptions {
  readonly port?: number;
  /** Bot tokens accepted; any `xoxb-` token when absent. */
  readonly tokens?: readonly string[];
  /** Channels that exist (names without `#`); any when absent. */
  readonly channels?: readonly string[];
  /** Prints a compact rendering of every message as it is posted or updated ("what would be sent"). */
  readonly print?: (line: string) => void;
  /** With `print`: one short line per message pointing here (the whole message is read at this URL). */
  readonly viewUrl?: () => string | undefined;
}

export interface ReceivedMessage {
  /** Channel id (as Slack answers it), or `hook:<path>` for an incoming webhook. */
  readonly channel: string;
  readonly ts: string;
  readonly threadTs?: string;
  readonly text: string;
  readonly blocks: readonly unknown[];
  /** How many times `chat.update` changed it. */
  readonly edits: number;
}

export const RECEIVER_METHODS = ['chat.postMessage', 'chat.update', 'webhook'] as const;
export type ReceiverMethod = (typeof RECEIVER_METHODS)[number];

export interface ReceivedCall {
  readonly method: ReceiverMethod;
  readonly status: number;
  readonly error?: string;
}

/** An answer to inject instead of handling the next `times` matching calls. */
export interface SlackFault {
  readonly status: 429 | 500 | 502 | 503;
  readonly retryAfterSeconds?: number;
  readonly times?: number;
  readonly method?: ReceiverMethod;
}

export interface SlackReceiver {
  /** `SLACK_API_URL` for the bot adapter: `http://127.0.0.1:<port>/api/`. */
  readonly apiUrl: string;
  /** `SLACK_WEBHOOK_URL` for the webhook adapter. */
  webhookUrl(path?: string): string;
  /** Top-level messages in posting order, each as it stands now. */
  messages(channel?: string): ReceivedMessage[];
  replies(threadTs: string): ReceivedMessage[];
  calls(): ReceivedCall[];
  /** The id a channel name is given (`#deploys` and `deploys` alike). */
  channelId(name: string): string;
  injectFault(fault: SlackFault): void;
  clearFaults(): void;
  /** As if a person deleted the message: later updates answer `message_not_found`. */
  deleteMessage(ts: string): void;
  close(): Promise<void>;
}

type Answer = { status: number; body: unknown; headers?: Record<string, string> };
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A local Slack double on 127.0.0.1: Web API `chat.postMessage`/`chat.update` and incoming webhooks. */
export async function startSlackReceiver(options: SlackReceiverOptions = {}): Promise<SlackReceiver> {
  const stored: Mutable<ReceivedMessage>[] = [];
  const calls: ReceivedCall[] = [];
  const faults: Mutable<SlackFault>[] = [];
  const channelIds = new Map<string, string>();
  let clock = 0;
  const nextTs = () => `${1_700_000_000 + Math.floor(clock / 1000)}.${String(++clock).padStart(6, '0')}`;

  const channelId = (name: string): string => {
    if (/^[CGD][A-Z0-9]{8,}$/.test(name)) return name;
    const bare = name.replace(/^#/, '');
    const known = channelIds.get(bare);
    if (known !== undefined) return known;
    const id = `C${String(channelIds.size + 1).padStart(9, '0')}`;
    channelIds.set(bare, id);
    return id;
  };
  const channelExists = (channel: string) =>
    options.channels === undefined || options.channels.some((name) => channelId(name) === channelId(channel));

  const print = (verb: string, message: ReceivedMessage) => {
    if (options.print === undefined) return;
    const where =
      message.threadTs === undefined ? message.channel : `${message.channel} thread ${message.threadTs}`;
    const [first = '', ...rest] = compactText(message);
    const view = options.viewUrl?.();
    if (view !== undefined) {
      const head = first.length > 100 ? `${first.slice(0, 99)}…` : first;
      return options.print(`[slack] ${where} ${verb} ${message.ts}: ${head}  (${view})`);
    }
    options.print(
      [`[slack] ${where} ${verb} ${message.ts}: ${first}`, ...rest.map((l) => `  ${l}`)].join('\n'),
    );
  };

  const takeFault = (method: ReceiverMethod): Answer | undefined => {
    const index = faults.findIndex((f) => f.method === undefined || f.method === method);
    const fault = faults[index];
    if (fault === undefined) return undefined;
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) faults.splice(index, 1);
    if (fault.status !== 429)
      return { status: fault.status, body: method === 'webhook' ? 'internal_error' : '' };
    const headers =
      fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) };
    return {
      status: 429,
      headers,
      body: method === 'webhook' ? 'rate_limited' : { ok: false, error: 'ratelimited' },
    };
  };

  const api = (method: ReceiverMethod, auth: string | undefined, body: Record<string, unknown>): Answer => {
    const slackError = (error: string): Answer => ({ status: 200, body: { ok: false, error } });
    const token =
      auth?.match(/^Bearer (.+)$/)?.[1] ?? (typeof body.token === 'string' ? body.token : undefined);
    if (token === undefined) return slackError('not_authed');
    if (options.tokens === undefined ? !token.startsWith('xoxb-') : !options.tokens.includes(token)) {
      return slackError('invalid_auth');
    }
    const blocks = parseBlocks(body.blocks);
    if (blocks === 'invalid') return slackError('invalid_blocks');
    const text = typeof body.text === 'string' ? body.text : '';
    if (typeof body.channel !== 'string' || body.channel === '') return slackError('channel_not_found');
    if (method === 'chat.postMessage') {
      if (!channelExists(body.channel)) return slackError('channel_not_found');
      if (text === '' && blocks.length === 0) return slackError('no_text');
      const channel = channelId(body.channel);
      const threadTs = typeof body.thread_ts === 'string' ? body.thread_ts : undefined;
      if (threadTs !== undefined && !stored.some((m) => m.channel === channel && m.ts === threadTs)) {
        return slackError('thread_not_found');
      }
      const message = { channel, ts: nextTs(), text, blocks, edits: 0, ...(threadTs ? { threadTs } : {}) };
      stored.push(message);
      print(threadTs === undefined ? 'posted' : 'replied', message);
      return { status: 200, body: { ok: true, channel, ts: message.ts, message: { text, ts: message.ts } } };
    }
    // chat.update wants the channel id that chat.postMessage answered with, not a #name
    if (![...channelIds.values()].includes(body.channel)) return slackError('channel_not_found');
    const message = stored.find((m) => m.channel === body.channel && m.ts === body.ts);
    if (message === undefined) return slackError('message_not_found');
    Object.assign(message, { text, blocks, edits: message.edits + 1 });
    print(`updated (${message.edits})`, message);
    return { status: 200, body: { ok: true, channel: message.channel, ts: message.ts, text } };
  };

  const hook = (path: string, body: Record<string, unknown>): Answer => {
    const blocks = parseBlocks(body.blocks);
    if (blocks === 'invalid') return { status: 400, body: 'invalid_blocks' };
    const text = typeof body.text === 'string' ? body.text : '';
    if (text === '' && blocks.length === 0) return { status: 400, body: 'no_text' };
    const message = { channel: `hook:${path}`, ts: nextTs(), text, blocks, edits: 0 };
    stored.push(message);
    print('posted', message);
    return { status: 200, body: 'ok' };
  };

  const route = async (request: IncomingMessage): Promise<{ method?: ReceiverMethod; answer: Answer }> => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const apiMethod = path.match(/^\/api\/(chat\.postMessage|chat\.update)$/)?.[1] as
      | ReceiverMethod
      | undefined;
    const hookPath = path.match(/^\/hooks\/(.+)$/)?.[1];
    if (request.method !== 'POST' || (apiMethod === undefined && hookPath === undefined)) {
      return { answer: { status: 404, body: { ok: false, error: 'unknown_method' } } };
    }
    const method = apiMethod ?? 'webhook';
    const fault = takeFault(method);
    if (fault !== undefined) return { method, answer: fault };
    const body = parseBody(request.headers['content-type'], await readBody(request));
    if (body === undefined) {
      return {
        method,
        answer: hookPath
          ? { status: 400, body: 'invalid_payload' }
          : { status: 200, body: { ok: false, error: 'invalid_json' } },
      };
    }
    if (hookPath !== undefined) return { method, answer: hook(hookPath, body) };
    return { method, answer: api(method, request.headers.authorization, body) };
  };

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    route(request)
      .then(({ method, answer }) => {
        if (method !== undefined) calls.push(recordCall(method, answer));
        send(response, answer);
      })
      .catch(() => send(response, { status: 500, body: { ok: false, error: 'internal_error' } }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    apiUrl: `${base}/api/`,
    webhookUrl: (path = 'T000/B000/local') => `${base}/hooks/${path}`,
    messages: (channel) =>
      stored.filter(
        (m) =>
          m.threadTs === undefined &&
          (channel === undefined ||
            m.channel === (channel.startsWith('hook:') ? channel : channelId(channel))),
      ),
    replies: (threadTs) => stored.filter((m) => m.threadTs === threadTs),
    calls: () => [...calls],
    channelId,
    injectFault: (fault) => faults.push({ ...fault }),
    clearFaults: () => faults.splice(0),
    deleteMessage: (ts) => {
      const index = stored.findIndex((m) => m.ts === ts);
      if (index >= 0) stored.splice(index, 1);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function recordCall(method: ReceiverMethod, answer: Answer): ReceivedCall {
  const error =
    typeof answer.body === 'object' && answer.body !== null && 'error' in answer.body
      ? String((answer.body as { error: unknown }).error)
      : answer.status >= 400 && typeof answer.body === 'string'
        ? answer.body
        : undefined;
  return { method, status: answer.status, ...(error === undefined ? {} : { error }) };
}

function send(response: ServerResponse, answer: Answer): void {
  const isText = typeof answer.body === 'string';
  response.writeHead(answer.status, {
    'content-type': isText ? 'text/plain' : 'application/json; charset=utf-8',
    ...answer.headers,
  });
  response.end(isText ? answer.body : JSON.stringify(answer.body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Web API calls come as JSON or as a form (the SDK's way, with `blocks` as a JSON string). */
function parseBody(contentType: string | undefined, raw: string): Record<string, unknown> | undefined {
  try {
    if (contentType?.startsWith('application/x-www-form-urlencoded')) {
      const form = Object.fromEntries(new URLSearchParams(raw));
      // an incoming webhook may also be sent as `payload=<json>`
      return typeof form.payload === 'string' ? JSON.parse(form.payload) : form;
    }
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Slack refuses more than 50 blocks, and section or header texts over their limits. */
function parseBlocks(value: unknown): unknown[] | 'invalid' {
  if (value === undefined || value === '') return [];
  let blocks: unknown = value;
  if (typeof value === 'string') {
    try {
      blocks = JSON.parse(value);
    } catch {
      return 'invalid';
    }
  }
  if (!Array.isArray(blocks) || blocks.length > 50) return 'invalid';
  const tooLong = blocks.some((block) => {
    const { type, text } = (block ?? {}) as { type?: unknown; text?: { text?: unknown } };
    const length = typeof text?.text === 'string' ? text.text.length : 0;
    return (type === 'section' && length > 3000) || (type === 'header' && length > 150);
  });
  return tooLong ? 'invalid' : blocks;
}
