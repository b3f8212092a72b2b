import { callHost, type HostCallOptions } from '../http/host-call.js';
import type { StatusRequest } from './host-request.js';

/**
 * POSTs one status through the shared host call (lib/http/host-call.ts): 429 and 5xx (and network failures)
 * retried within the budget, honouring Retry-After; a redirect refused rather than followed.
 */
export async function postStatus(request: StatusRequest, options: HostCallOptions = {}): Promise<void> {
  await callHost({ method: 'POST', ...request }, options);
}
