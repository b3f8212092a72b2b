import { describe, expect, it } from 'vitest';
import { verifyGitHubSignature, verifyGitLabToken } from '../../../lib/webhook/verify.js';
import { signGitHub } from './support.js';

const body = Buffer.from('{"zen":"Keep it logically awesome.","hook_id":1}');
const secret = 'current-secret';

describe('verifyGitHubSignature', () => {
  it.each([
    [
      'a signature made with the only secret passes',
      [secret],
      { 'x-hub-signature-256': signGitHub(body, secret) },
    ],
    [
      'a signature made with the old secret passes while both are configured (rotation)',
      ['new-secret', secret],
      { 'x-hub-signature-256': signGitHub(body, secret) },
    ],
    [
      'header names are matched whatever their case',
      [secret],
      { 'X-Hub-Signature-256': signGitHub(body, secret) },
    ],
  ])('%s', async (_name, secrets, headers) => {
    expect(await verifyGitHubSignature(body, headers, secrets)).toEqual({ verified: true });
  });

  const good = signGitHub(body, secret);
  it.each([
    [
      'no secret configured refuses even a well-signed body',
      [],
      { 'x-hub-signature-256': good },
      'no-secret-configured',
    ],
    ['a list of empty secrets counts as none', [''], { 'x-hub-signature-256': good }, 'no-secret-configured'],
    ['no signature header is refused', [secret], {}, 'signature-missing'],
    [
      'only the legacy SHA-1 X-Hub-Signature is refused',
      [secret],
      { 'x-hub-signature': `sha1=${'a'.repeat(40)}` },
      'signature-sha1-only',
    ],
    [
      'bare hex without the sha256= prefix is refused',
      [secret],
      { 'x-hub-signature-256': good.slice(7) },
      'signature-malformed',
    ],
    [
      'a digest of the wrong length is refused',
      [secret],
      { 'x-hub-signature-256': good.slice(0, -2) },
      'signature-malformed',
    ],
    [
      'upper-case hex is refused',
      [secret],
      { 'x-hub-signature-256': `sha256=${good.slice(7).toUpperCase()}` },
      'signature-malformed',
    ],
    [
      'a signature made with another secret is refused',
      [secret],
      { 'x-hub-signature-256': signGitHub(body, 'other') },
      'signature-mismatch',
    ],
    [
      'a signature over other bytes is refused',
      [secret],
      { 'x-hub-signature-256': signGitHub(`${body.toString()} `, secret) },
      'signature-mismatch',
    ],
  ])('%s', async (_name, secrets, headers, reason) => {
    expect(await verifyGitHubSignature(body, headers, secrets)).toEqual({ verified: false, reason });
  });

  it('verifies the raw bytes, so multi-byte UTF-8 text signs and verifies as sent', async () => {
    const unicode = Buffer.from('{"message":"déploiement ✓ 🚀"}', 'utf8');
    const headers = { 'x-hub-signature-256': signGitHub(unicode, secret) };
    expect(await verifyGitHubSignature(unicode, headers, [secret])).toEqual({ verified: true });
  });

  it('refuses a body that is not UTF-8, which cannot be verified byte-exactly as text', async () => {
    const latin1 = Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x7d]);
    const headers = { 'x-hub-signature-256': signGitHub(latin1, secret) };
    expect(await verifyGitHubSignature(latin1, headers, [secret])).toEqual({
      verified: false,
      reason: 'body-not-utf8',
    });
  });

  it('refuses an empty body', async () => {
    const empty = Buffer.alloc(0);
    const headers = { 'x-hub-signature-256': signGitHub(empty, secret) };
    expect(await verifyGitHubSignature(empty, headers, [secret])).toMatchObject({ verified: false });
  });
});

describe('verifyGitLabToken', () => {
  it.each([
    ['the configured token passes', ['tok-1'], { 'x-gitlab-token': 'tok-1' }],
    ['any one of several tokens passes (rotation)', ['tok-new', 'tok-1'], { 'x-gitlab-token': 'tok-1' }],
    ['the header name is matched whatever its case', ['tok-1'], { 'X-Gitlab-Token': 'tok-1' }],
  ])('%s', (_name, tokens, headers) => {
    expect(verifyGitLabToken(headers, tokens)).toEqual({ verified: true });
  });

  it.each([
    [
      'no token configured refuses a request that carries one',
      [],
      { 'x-gitlab-token': 'tok-1' },
      'no-secret-configured',
    ],
    ['no token configured refuses a request without one', [], {}, 'no-secret-configured'],
    ['a missing header is refused', ['tok-1'], {}, 'token-missing'],
    ['an empty header is refused', ['tok-1'], { 'x-gitlab-token': '' }, 'token-missing'],
    ['a wrong token is refused', ['tok-1'], { 'x-gitlab-token': 'tok-2' }, 'token-mismatch'],
    ['a prefix of the token is refused', ['tok-1'], { 'x-gitlab-token': 'tok-' }, 'token-mismatch'],
    ['a longer token is refused', ['tok-1'], { 'x-gitlab-token': 'tok-10' }, 'token-mismatch'],
    ['tokens are case-sensitive', ['tok-1'], { 'x-gitlab-token': 'TOK-1' }, 'token-mismatch'],
  ])('%s', (_name, tokens, headers, reason) => {
    expect(verifyGitLabToken(headers, tokens)).toEqual({ verified: false, reason });
  });
});
