import { describe, expect, it } from 'vitest';
import { toGitError } from '../../../lib/git/git-errors.js';
import { RepoNotAllowedError } from '../../../lib/git/repo-url.js';

const httpError = (statusCode: number) =>
  Object.assign(new Error('HTTP Error'), { code: 'HttpError', data: { statusCode } });

describe('toGitError', () => {
  it.each([
    ['a 401', httpError(401), { code: 'git-auth', retryable: false, upstreamStatus: 401 }],
    ['a 403', httpError(403), { code: 'git-auth', retryable: false, upstreamStatus: 403 }],
    ['a 404', httpError(404), { code: 'git-not-found', retryable: false }],
    ['a redirect, which is never followed', httpError(301), { code: 'git-redirect', retryable: false }],
    ['a 429', httpError(429), { code: 'git-http', retryable: true }],
    ['a 502', httpError(502), { code: 'git-http', retryable: true }],
    ['a 400', httpError(400), { code: 'git-http', retryable: false }],
    [
      'refused credentials',
      Object.assign(new Error('x'), { code: 'UserCanceledError' }),
      { code: 'git-auth' },
    ],
    ['anything else', new Error('boom'), { code: 'git', retryable: true }],
  ])('maps %s', (_name, error, expected) => {
    const mapped = toGitError(error, 'https://github.com/org/gitops', 'fetching');
    expect(mapped).toMatchObject(expected);
    expect(mapped.message).toMatch(/^fetching https:\/\/github\.com\/org\/gitops: /);
  });

  it('passes our own non-upstream errors through unchanged', () => {
    const error = new RepoNotAllowedError('https://x/y');
    expect(toGitError(error, 'k', 'fetching')).toBe(error);
  });
});
