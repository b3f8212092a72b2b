import { createHash, timingSafeEqual } from 'node:crypto';

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

export const VERIFIED: Verification = { verified: true };

export function unverified(reason: UnverifiedReason): Verification {
  return { verified: false, reason };
}

/**
 * Whether `given` equals one of `accepted`. Both sides are hashed (SHA-256) before `timingSafeEqual`,
 * so neither the content nor the length of a secret leaks through timing, and every accepted value is
 * compared (no early exit), so which one matched does not leak either.
 */
export function equalsAnySecret(given: string, accepted: readonly string[]): boolean {
  const givenHash = sha256(given);
  let matched = false;
  for (const secret of accepted) {
    matched = timingSafeEqual(givenHash, sha256(secret)) || matched;
  }
  return matched;
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
