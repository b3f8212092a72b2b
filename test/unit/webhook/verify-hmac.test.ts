import { describe, expect, it } from 'vitest';
import { verifyBasicAuthPassword, verifyHmacSha256 } from '../../../lib/webhook/verify-hmac.js';
import { basicAuth, hmacHex } from './hosts.js';

const body = Buffer.from('{"ref":"refs/heads/main"}');
const prefixed = { names: ['x-hub-signature'], prefix: 'sha256=' } as const;
const bare = { names: ['x-gitea-signature', 'x-gogs-signature'], prefix: '' } as const;

describe('verifyHmacSha256', () => {
  it.each([
    [
      'the prefixed signature of the exact body',
      prefixed,
      { 'x-hub-signature': `sha256=${hmacHex(body, 's1')}` },
      ['s1'],
      { verified: true },
    ],
    [
      'a signature made with the older secret of a rotation',
      prefixed,
      { 'x-hub-signature': `sha256=${hmacHex(body, 'old')}` },
      ['new', 'old'],
      { verified: true },
    ],
    [
      'upper-case hex and prefix',
      prefixed,
      { 'X-Hub-Signature': `SHA256=${hmacHex(body, 's1').toUpperCase()}` },
      ['s1'],
      { verified: true },
    ],
    [
      'bare hex under the second header name',
      bare,
      { 'x-gogs-signature': hmacHex(body, 's1') },
      ['s1'],
      { verified: true },
    ],
    [
      'no configured secret',
      prefixed,
      { 'x-hub-signature': `sha256=${hmacHex(body, 's1')}` },
      [],
      { verified: false, reason: 'no-secret-configured' },
    ],
    [
      'an empty configured secret',
      prefixed,
      { 'x-hub-signature': `sha256=${hmacHex(body, '')}` },
      [''],
      { verified: false, reason: 'no-secret-configured' },
    ],
    ['no signature header', prefixed, {}, ['s1'], { verified: false, reason: 'signature-missing' }],
    [
      'a prefixed header where bare hex is expected',
      bare,
      { 'x-gitea-signature': `sha256=${hmacHex(body, 's1')}` },
      ['s1'],
      { verified: false, reason: 'signature-malformed' },
    ],
    [
      'bare hex where the prefix is expected',
      prefixed,
      { 'x-hub-signature': hmacHex(body, 's1') },
      ['s1'],
      { verified: false, reason: 'signature-malformed' },
    ],
    [
      'a truncated signature',
      prefixed,
      { 'x-hub-signature': `sha256=${hmacHex(body, 's1').slice(0, 40)}` },
      ['s1'],
      { verified: false, reason: 'signature-malformed' },
    ],
    [
      'a SHA-1 signature',
      prefixed,
      { 'x-hub-signature': 'sha1=0123456789abcdef0123456789abcdef01234567' },
      ['s1'],
      { verified: false, reason: 'signature-malformed' },
    ],
    [
      'another secret',
      prefixed,
      { 'x-hub-signature': `sha256=${hmacHex(body, 'other')}` },
      ['s1'],
      { verified: false, reason: 'signature-mismatch' },
    ],
  ])('%s → %j', (_name, header, headers, secrets, expected) => {
    expect(verifyHmacSha256(body, headers, secrets, header)).toEqual(expected);
  });

  it('signs the raw bytes, so a re-serialised body does not verify', () => {
    const signature = `sha256=${hmacHex(body, 's1')}`;
    const reformatted = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 2));
    expect(verifyHmacSha256(reformatted, { 'x-hub-signature': signature }, ['s1'], prefixed)).toEqual({
      verified: false,
      reason: 'signature-mismatch',
    });
  });
});

describe('verifyBasicAuthPassword', () => {
  it.each([
    [
      'the password, whatever the user name',
      { authorization: basicAuth('anyone', 'p@ss:word') },
      ['p@ss:word'],
      { verified: true },
    ],
    [
      'the older password of a rotation',
      { authorization: basicAuth('u', 'old') },
      ['new', 'old'],
      { verified: true },
    ],
    ['an empty user name', { authorization: basicAuth('', 'pw') }, ['pw'], { verified: true }],
    [
      'no configured password',
      { authorization: basicAuth('u', 'pw') },
      [],
      { verified: false, reason: 'no-secret-configured' },
    ],
    ['no Authorization header', {}, ['pw'], { verified: false, reason: 'token-missing' }],
    ['a bearer token', { authorization: 'Bearer pw' }, ['pw'], { verified: false, reason: 'auth-malformed' }],
    [
      'basic credentials without a colon',
      { authorization: `Basic ${Buffer.from('pw').toString('base64')}` },
      ['pw'],
      { verified: false, reason: 'auth-malformed' },
    ],
    [
      'a wrong password',
      { authorization: basicAuth('u', 'pw2') },
      ['pw'],
      { verified: false, reason: 'token-mismatch' },
    ],
    [
      'a password that only starts like the right one',
      { authorization: basicAuth('u', 'pw') },
      ['pwd'],
      { verified: false, reason: 'token-mismatch' },
    ],
  ])('%s → %j', (_name, headers, passwords, expected) => {
    expect(verifyBasicAuthPassword(headers, passwords)).toEqual(expected);
  });
});
