import { createLimiter } from '../concurrency.js';
import { UpstreamError } from '../errors.js';
import { createAgent, type HttpAnswer, httpGet, TransportError } from './http-get.js';
import {
  errorBodyMessage,
  ManifestsAnswerError,
  type ManifestsQuery,
  manifestsUrl,
  parseManifestsAnswer,
  type RenderedManifests,
} from './manifests-query.js';

export interface ArgoCdApiOptions {
  /** The fleet file's `argocdUrl`: the only address the token is ever sent to. */
  readonly url: string;
  /** The bearer token (read from Secrets Manager by the caller, cached there). */
  readonly token: () => Promise<string>;
  /** Base64 PEM (`argocdCaData`). */
  readonly caData?: string;
  /** Per request (default 20 s): a repo-server rendering a large chart takes a while. */
  readonly timeoutMs?: number;
  /** Requests in flight against this Argo CD at most (default 4): renders are repo-server work. */
  readonly concurrency?: number;
  /** Extra attempts after a 5xx, 429 or lost connection (default 2). */
  readonly retries?: number;
  /** First backoff (default 250 ms), doubled per attempt, with jitter. */
  readonly backoffMs?: number;
  /** Longest `Retry-After` honoured (default 10 s); a longer one ends the attempts. */
  readonly maxRetryAfterMs?: number;
  /** Largest answer read (default 32 MiB). */
  readonly maxBytes?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

/** Argo CD's API server, read-only: the manifests its repo-server renders for an app at a revision. */
export interface ArgoCdApi {
  manifests(query: ManifestsQuery, limits?: RequestLimits): Promise<RenderedManifests>;
}

/** The caller's work deadline (epoch ms, real time): each request ends at it if that is sooner. */
export interface RequestLimits {
  readonly deadlineMs?: number;
}

/** A failed manifests request; the message is short, names the status, and never holds the token. */
export class ArgoCdApiError extends UpstreamError {
  /** The caller's work deadline ended the request, not Argo CD: a later caller may well get an answer. */
  readonly cutByDeadline: boolean;
  constructor(
    message: string,
    options: { retryable: boolean; upstreamStatus?: number; cutByDeadline?: boolean },
  ) {
    const { cutByDeadline, ...rest } = options;
    super(message, { ...rest, code: 'argocd-api' });
    this.cutByDeadline = cutByDeadline === true;
  }
}

const RETRYABLE = new Set([429, 500, 502, 503, 504]);

export function createArgoCdApi(options: ArgoCdApiOptions): ArgoCdApi {
  const concurrency = options.concurrency ?? 4;
  const limit = createLimiter(concurrency);
  const retries = options.retries ?? 2;
  const backoffMs = options.backoffMs ?? 250;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 10_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const random = options.random ?? Math.random;
  const ca = options.caData === undefined ? undefined : Buffer.from(options.caData, 'base64').toString();
  const agent = createAgent(options.url, { maxSockets: concurrency, ...(ca === undefined ? {} : { ca }) });

  const timeoutMs = options.timeoutMs ?? 20_000;
  // Each request ends at its timeout, or at the caller's work deadline when that is sooner.
  const once = async (url: URL, token: string, deadlineMs: number | undefined): Promise<HttpAnswer> =>
    limit(() => {
      const left = leftOf(deadlineMs);
      if (left !== undefined && left <= 0) throw new TransportError('the work deadline passed', 'timeout');
      return httpGet(url, {
        headers: { Authorization: `Bearer ${token}` },
        timeoutMs: left === undefined ? timeoutMs : Math.min(timeoutMs, left),
        maxBytes: options.maxBytes ?? 32 * 1024 * 1024,
        agent,
      });
    });

  return {
    async manifests(query, limits = {}) {
      const url = manifestsUrl(options.url, query);
      const token = await options.token();
      const scrub = (text: string) => (token === '' ? text : text.split(token).join('[token]'));
      for (let attempt = 0; ; attempt++) {
        let answer: HttpAnswer;
        try {
          answer = await once(url, token, limits.deadlineMs);
        } catch (error) {
          if (!(error instanceof TransportError)) throw error;
          // A deadline is not retried: a slow render would only get slower under more load.
          if (error.kind === 'network' && attempt < retries) {
            await sleep(backoff(attempt, backoffMs, random));
            continue;
          }
          const left = leftOf(limits.deadlineMs);
          throw new ArgoCdApiError(`Argo CD API: ${error.message}`, {
            retryable: error.kind !== 'too-large',
            cutByDeadline: error.kind === 'timeout' && left !== undefined && left < timeoutMs,
          });
        }
        if (answer.status === 200) {
          try {
            return parseManifestsAnswer(answer.body);
          } catch (error) {
            if (!(error instanceof ManifestsAnswerError)) throw error;
            throw new ArgoCdApiError(`Argo CD API: ${error.message}`, { retryable: false });
          }
        }
        if (RETRYABLE.has(answer.status) && attempt < retries) {
          const wait = retryAfterMs(answer.headers['retry-after']);
          if (wait === undefined || wait <= maxRetryAfterMs) {
            await sleep(wait ?? backoff(attempt, backoffMs, random));
            continue;
          }
        }
        throw new ArgoCdApiError(scrub(describe(answer, attempt + 1)), {
          retryable: RETRYABLE.has(answer.status),
          upstreamStatus: answer.status,
        });
      }
    },
  };
}

function leftOf(deadlineMs: number | undefined): number | undefined {
  return deadlineMs === undefined ? undefined : deadlineMs - Date.now();
}

function describe(answer: HttpAnswer, attempts: number): string {
  const said = errorBodyMessage(answer.body);
  const detail = said === undefined ? '' : `: ${said.replace(/\s+/g, ' ').slice(0, 200)}`;
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  switch (answer.status) {
    case 401:
      return `Argo CD API answered 401: the token was not accepted (expired or revoked?)${detail}`;
    case 403:
      return `Argo CD API answered 403: the token may not get this application (needs applications, get on its project)${detail}`;
    case 404:
      return `Argo CD API answered 404: no such application${detail}`;
    default:
      if (answer.status >= 300 && answer.status < 400) {
        return `Argo CD API answered ${answer.status} (a redirect, not followed: point argocdUrl at the API server itself)`;
      }
      return `Argo CD API answered ${answer.status}${tries}${detail}`;
  }
}

function backoff(attempt: number, baseMs: number, random: () => number): number {
  const ceiling = baseMs * 2 ** attempt;
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from now. */
function retryAfterMs(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
