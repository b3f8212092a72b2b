import { createHash, timingSafeEqual } from 'node:crypto';
import { Webhooks } from '@octokit/webhooks';
import { headerValue } from './headers.js';

/** Why a delivery was not verified: logged (never answered) so operators can tell rotation from attack. */
export const UNVERIFIED_REASONS = [
  'no-secret-configured',
  'signature-missing',
  'signature-sha1-only',
  'signature-malformed',
  'signature-mismatch',
  'body-not-utf8',
  'token-missing',
  'token-mismatch',
  'auth-malformed',
] as const;
export type UnverifiedReason = (typeof UNVERIFIED_REASONS)[number];

export type Verification =
  | { readonly verified: true }
  | { readonly verified: false; readonly reason: UnverifiedReason };

const VERIFIED: Verification = { verified: true };
const SHA256_SIGNATURE = /^sha256=[0-9a-f]{64}$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function unverified(reason: UnverifiedReason): Verification {
  return { verified: false, reason };
}

/**
 * GitHub: `X-Hub-Signature-256` (`sha256=` + lowercase hex HMAC-SHA256 of the raw body) checked with
 * octokit's constant-time verifier against each secret; any one passing is enough (rotation). The
 * legacy SHA-1 `X-Hub-Signature` alone is refused, and so is bare hex: GitHub always sends the prefix.
 */
export async function verifyGitHubSignature(
  body: Buffer,
  headers: Readonly<Record<string, string>>,
  secrets: readonly string[],
): Promise<Verification> {
  const usable = secrets.filter((secret) => secret !== '');
  if (usable.length === 0) return unverified('no-secret-configured');
  const signature = headerValue(headers, 'x-hub-signature-256');
  if (signature === undefined) {
    return unverified(
      headerValue(headers, 'x-hub-signature') === undefined ? 'signature-missing' : 'signature-sha1-only',
    );
  }
  if (!SHA256_SIGNATURE.test(signature)) return unverified('signature-malformed');
  // octokit signs a string as UTF-8; only a body that round-trips exactly can be verified that way.
  let payload: string;
  try {
    payload = strictUtf8.decode(body);
  } catch {
    return unverified('body-not-utf8');
  }
  for (const secret of usable) {
    if (await verifyWith(secret, payload, signature)) return VERIFIED;
  }
  return unverified('signature-mismatch');
}

async function verifyWith(secret: string, payload: string, signature: string): Promise<boolean> {
  // octokit refuses an empty payload; no GitHub event has an empty body.
  if (payload === '') return false;
  return new Webhooks({ secret }).verify(payload, signature);
}

/**
 * GitLab: `X-Gitlab-Token` equals one of the configured tokens. Both sides are hashed (SHA-256) before
 * `timingSafeEqual`, so neither the content nor the length of a token leaks through timing, and every
 * token is compared (no early exit).
 */
export function verifyGitLabToken(
  headers: Readonly<Record<string, string>>,
  tokens: readonly string[],
): Verification {
  const usable = tokens.filter((token) => token !== '');
  if (usable.length === 0) return unverified('no-secret-configured');
  const given = headerValue(headers, 'x-gitlab-token');
  if (given === undefined) return unverified('token-missing');
  const givenHash = sha256(given);
  let matched = false;
  for (const token of usable) {
    matched = timingSafeEqual(givenHash, sha256(token)) || matched;
  }
  return matched ? VERIFIED : unverified('token-mismatch');
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
