import { type HttpResponse, json } from '../http/response.js';

/** How long a Git host is asked to wait before it delivers again. */
const RETRY_AFTER_SECONDS = 30;

/** Our failure, not the caller's: a 503 tells the provider to try again. */
export function unavailable(): HttpResponse {
  return json(
    503,
    { error: 'unavailable', message: 'temporarily unavailable, retry later' },
    { 'retry-after': String(RETRY_AFTER_SECONDS) },
  );
}
