import { createHmac, timingSafeEqual } from 'node:crypto';
import { headerValue } from './headers.js';
import { equalsAnySecret, unverified, VERIFIED, type Verification } from './verification.js';

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

export interface HmacHeader {
  /** Header names in the order tried (e.g. `x-gitea-signature`, then `x-gogs-signature`). */
  readonly names: readonly string[];
  /** `sha256=` (Bitbucket, generic) or none (Gitea and Gogs send bare hex). */
  readonly prefix: 'sha256=' | '';
}

/**
 * HMAC-SHA256 of the raw body bytes against each accepted secret (rotation): every secret is tried (no
 * early exit) and each comparison is `timingSafeEqual` over the 32 digest bytes, so neither the content
 * nor which secret matched leaks through timing.
 */
export function verifyHmacSha256(
  body: Buffer,
  headers: Readonly<Record<string, string>>,
  secrets: readonly string[],
  header: HmacHeader,
): Verification {
  const usable = secrets.filter((secret) => secret !== '');
  if (usable.length === 0) return unverified('no-secret-configured');
  const given = header.names.map((name) => headerValue(headers, name)).find((v) => v !== undefined);
  if (given === undefined) return unverified('signature-missing');
  const prefix = header.prefix;
  const hex = given.slice(0, prefix.length).toLowerCase() === prefix ? given.slice(prefix.length) : '';
  if (!HEX_SHA256.test(hex)) return unverified('signature-malformed');
  const expected = Buffer.from(hex, 'hex');
  let matched = false;
  for (const secret of usable) {
    const digest = createHmac('sha256', secret).update(body).digest();
    matched = timingSafeEqual(digest, expected) || matched;
  }
  return matched ? VERIFIED : unverified('signature-mismatch');
}

/**
 * HTTP basic auth (Azure DevOps service hooks): the password must equal one accepted secret; the user
 * name is not checked (Azure lets any be set). Compared in constant time, length included (`equalsAnySecret`).
 */
export function verifyBasicAuthPassword(
  headers: Readonly<Record<string, string>>,
  passwords: readonly string[],
): Verification {
  const usable = passwords.filter((password) => password !== '');
  if (usable.length === 0) return unverified('no-secret-configured');
  const authorization = headerValue(headers, 'authorization');
  if (authorization === undefined) return unverified('token-missing');
  const match = /^basic\s+([A-Za-z0-9+/]+={0,2})$/i.exec(authorization);
  if (match === null) return unverified('auth-malformed');
  const decoded = Buffer.from(match[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return unverified('auth-malformed');
  return equalsAnySecret(decoded.slice(colon + 1), usable) ? VERIFIED : unverified('token-mismatch');
}
