import { isRedirect, RedirectRefusedError, redirectTarget } from '../http/redirect.js';
import type { CompareResult } from './compare-model.js';

export interface CompareContext {
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly fetch: typeof fetch;
}

export function unknown(detail: string): CompareResult {
  return { known: false, reason: 'compare-failed', detail };
}

/**
 * GETs JSON with a deadline and a size cap; a non-2xx answer is an `HttpStatusError`. The request carries
 * the repository's token, so a redirect is refused (`RedirectRefusedError`), never followed.
 */
export async function getJson(
  url: string,
  headers: Record<string, string>,
  context: CompareContext,
): Promise<unknown> {
  const response = await context.fetch(url, {
    headers: { Accept: 'application/json', 'User-Agent': 'gitops-sync-orchestrator', ...headers },
    redirect: 'manual',
    signal: AbortSignal.timeout(context.timeoutMs),
  });
  if (isRedirect(response.status)) {
    await response.body?.cancel().catch(() => undefined);
    throw new RedirectRefusedError(response.status, redirectTarget(response.headers.get('location'), url));
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new HttpStatusError(response.status);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > context.maxResponseBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`answer larger than ${context.maxResponseBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export class HttpStatusError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

/** A page link from an answer is followed only on the API's own origin: the token never goes elsewhere. */
export function sameOrigin(link: unknown, apiBaseUrl: string): link is string {
  if (typeof link !== 'string') return false;
  try {
    return new URL(link).origin === new URL(apiBaseUrl).origin;
  } catch {
    return false;
  }
}

/** Pages read per comparison before the list is called truncated (unknown, so fan-out fails open). */
export const MAX_COMPARE_PAGES = 20;
