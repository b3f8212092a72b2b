import { verify } from '@octokit/webhooks-methods';
import { headerValue } from './headers.js';
import { equalsAnySecret, unverified, VERIFIED, type Verification } from './verification.js';

export type { UnverifiedReason, Verification } from './verification.js';

const SHA256_SIGNATURE = /^sha256=[0-9a-f]{64}$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * GitHub: `X-Hub-Signature-256` (`sha256=` + lowercase hex HMAC-SHA256 of the raw body) checked with
 * octokit's constant-time verifier (`@octokit/webhooks-methods`, the one `Webhooks#verify` binds; the
 * event emitter around it is not needed here) against each secret; any one passing is enough (rotation). The
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
  return verify(secret, payload, signature);
}

/**
 * GitLab: `X-Gitlab-Token` (or `header`) equals one of the configured tokens, compared in constant
 * time whatever the token's length (`equalsAnySecret`).
 */
export function verifyGitLabToken(
  headers: Readonly<Record<string, string>>,
  tokens: readonly string[],
  header = 'x-gitlab-token',
): Verification {
  const usable = tokens.filter((token) => token !== '');
  if (usable.length === 0) return unverified('no-secret-configured');
  const given = headerValue(headers, header);
  if (given === undefined) return unverified('token-missing');
  return equalsAnySecret(given, usable) ? VERIFIED : unverified('token-mismatch');
}
