import { describe, expect, it } from 'vitest';
import {
  KubernetesApiError,
  parseRetryAfter,
  toKubernetesError,
} from '../../../lib/kubernetes/kube-error.js';

const context = {
  cluster: 'hub',
  verb: 'patch',
  resource: 'applications.argoproj.io',
  namespace: 'argocd',
  name: 'web',
};

function httpError(code: number, body?: unknown, headers: Record<string, string> = {}) {
  return Object.assign(new Error(`HTTP-Code: ${code}`), { code, body, headers });
}

describe('toKubernetesError', () => {
  it.each([
    [401, false],
    [403, false],
    [404, false],
    [422, false],
    [409, true],
    [429, true],
    [500, true],
    [503, true],
  ])('a %i answer is retryable: %s', (code, retryable) => {
    const error = toKubernetesError(httpError(code), context) as KubernetesApiError;
    expect(error).toBeInstanceOf(KubernetesApiError);
    expect(error.upstreamStatus).toBe(code);
    expect(error.retryable).toBe(retryable);
  });

  it("names the call and quotes the API server's Status message and reason", () => {
    const body = JSON.stringify({
      kind: 'Status',
      reason: 'Forbidden',
      message: 'applications.argoproj.io "web" is forbidden: User "x" cannot patch resource',
    });
    expect(toKubernetesError(httpError(403, body), context).message).toBe(
      'cluster hub: patch applications.argoproj.io argocd/web: 403 Forbidden: applications.argoproj.io "web" is forbidden: User "x" cannot patch resource',
    );
  });

  it('keeps a Retry-After in seconds', () => {
    const error = toKubernetesError(
      httpError(429, undefined, { 'retry-after': '3' }),
      context,
    ) as KubernetesApiError;
    expect(error.retryAfterMs).toBe(3000);
  });

  it('turns an aborted request into a retryable timeout', () => {
    const abort = Object.assign(new Error('The user aborted a request.'), { name: 'AbortError' });
    const error = toKubernetesError(abort, { ...context, timeoutMs: 250 }) as KubernetesApiError;
    expect(error.message).toBe(
      'cluster hub: patch applications.argoproj.io argocd/web: timed out after 250 ms',
    );
    expect(error.retryable).toBe(true);
    expect(error.upstreamStatus).toBeUndefined();
  });

  it('turns a refused connection into a retryable error', () => {
    const refused = Object.assign(new Error('request failed'), { type: 'system', code: 'ECONNREFUSED' });
    const error = toKubernetesError(refused, context) as KubernetesApiError;
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.retryable).toBe(true);
  });

  it('does not retry a programming error', () => {
    expect(
      (toKubernetesError(new TypeError('x is undefined'), context) as KubernetesApiError).retryable,
    ).toBe(false);
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['delta seconds', '5', 5000],
    ['an HTTP date', 'Tue, 02 Jan 2024 03:04:10 GMT', 5000],
    ['a date in the past as zero', 'Tue, 02 Jan 2024 03:04:00 GMT', 0],
    ['garbage as absent', 'soon', undefined],
  ])('reads %s', (_name, raw, expected) => {
    expect(parseRetryAfter(raw, Date.parse('2024-01-02T03:04:05Z'))).toBe(expected);
  });
});
