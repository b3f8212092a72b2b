import { describe, expect, it } from 'vitest';
import { cookieKeys, openLogin, openSession, seal } from '../../../lib/ui-auth/sealed-cookie.js';

const keys = cookieKeys('a-session-secret-that-is-long-enough-for-tests');
const now = new Date('2026-12-02T10:00:00Z');
const later = (seconds: number) => new Date(now.getTime() + seconds * 1000);
const person = { sub: 'user-1', email: 'alice@example.com', name: 'Alice' };

/** Flips one character of one part of the compact JWE (header, key, iv, ciphertext, tag). */
function tamper(value: string, part: number): string {
  const parts = value.split('.');
  const text = parts[part] ?? '';
  const last = text.at(-2) === 'A' ? 'B' : 'A';
  parts[part] = `${text.slice(0, -2)}${last}${text.slice(-1)}`;
  return parts.join('.');
}

describe('the sealed session cookie', () => {
  it('opens to the person it was sealed for, and holds nothing readable', async () => {
    const value = await seal(keys.session, 'session', person, 3600, now);
    expect(await openSession(keys, value, later(60))).toEqual(person);
    expect(Buffer.from(value.split('.')[3] ?? '', 'base64url').toString('latin1')).not.toContain('alice');
  });

  it.each([
    ['its header', 0],
    ['its IV', 2],
    ['its ciphertext', 3],
    ['its tag', 4],
  ])('is no session when %s is changed', async (_name, part) => {
    const value = await seal(keys.session, 'session', person, 3600, now);
    expect(await openSession(keys, tamper(value, part), later(60))).toBeUndefined();
  });

  it('is no session once expired', async () => {
    const value = await seal(keys.session, 'session', person, 3600, now);
    expect(await openSession(keys, value, later(3601))).toBeUndefined();
  });

  it('is no session under another secret', async () => {
    const value = await seal(keys.session, 'session', person, 3600, now);
    const other = cookieKeys('another-session-secret-that-is-long-enough');
    expect(await openSession(other, value, later(60))).toBeUndefined();
  });

  it('never opens a login cookie as a session, nor the other way round', async () => {
    const login = { state: 's', nonce: 'n', verifier: 'v', next: '/ui/' };
    const loginValue = await seal(keys.login, 'login', login, 600, now);
    expect(await openSession(keys, loginValue, later(1))).toBeUndefined();
    expect(await openLogin(keys, loginValue, later(1))).toEqual(login);
    const sessionValue = await seal(keys.session, 'session', person, 3600, now);
    expect(await openLogin(keys, sessionValue, later(1))).toBeUndefined();
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['not a JWE', 'hello'],
    ['an unsigned JWT', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.'],
  ])('is no session when %s', async (_name, value) => {
    expect(await openSession(keys, value, now)).toBeUndefined();
  });
});
