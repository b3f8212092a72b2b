import { hkdfSync } from 'node:crypto';
import { EncryptJWT, type JWTPayload, jwtDecrypt } from 'jose';

/** What a session cookie carries: who signed in, never a token or a secret. */
export interface SessionClaims {
  readonly sub: string;
  readonly email?: string;
  readonly name?: string;
}

/** What a login in flight carries between `/ui/login` and `/ui/callback`. */
export interface LoginClaims {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
  readonly next: string;
}

type Purpose = 'session' | 'login';

export interface CookieKeys {
  readonly session: Uint8Array;
  readonly login: Uint8Array;
}

/** One key per purpose (HKDF-SHA256 of the session secret): a login cookie never opens as a session. */
export function cookieKeys(secret: string): CookieKeys {
  const derive = (purpose: Purpose) =>
    new Uint8Array(hkdfSync('sha256', secret, 'gitops-sync ui', `ui ${purpose} cookie v1`, 32));
  return { session: derive('session'), login: derive('login') };
}

const ALGORITHMS = { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] };

/** An encrypted JWT (dir, A256GCM): its content is neither readable nor changeable without the key. */
export async function seal(
  key: Uint8Array,
  purpose: Purpose,
  claims: SessionClaims | LoginClaims,
  ttlSeconds: number,
  now: Date,
): Promise<string> {
  const at = Math.floor(now.getTime() / 1000);
  return new EncryptJWT({ ...claims })
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
    .setAudience(`gitops-sync-ui-${purpose}`)
    .setIssuedAt(at)
    .setExpirationTime(at + ttlSeconds)
    .encrypt(key);
}

/** The claims, or undefined for anything else: missing, tampered, expired or sealed for another purpose. */
export async function unseal(
  key: Uint8Array,
  purpose: Purpose,
  value: string | undefined,
  now: Date,
): Promise<JWTPayload | undefined> {
  if (value === undefined || value === '' || value.length > 4096) return undefined;
  try {
    const { payload } = await jwtDecrypt(value, key, {
      ...ALGORITHMS,
      audience: `gitops-sync-ui-${purpose}`,
      currentDate: now,
      requiredClaims: ['exp'],
    });
    return payload;
  } catch {
    return undefined;
  }
}

export async function openSession(keys: CookieKeys, value: string | undefined, now: Date) {
  const payload = await unseal(keys.session, 'session', value, now);
  if (payload === undefined || typeof payload.sub !== 'string') return undefined;
  return {
    sub: payload.sub,
    ...(typeof payload.email === 'string' ? { email: payload.email } : {}),
    ...(typeof payload.name === 'string' ? { name: payload.name } : {}),
  } satisfies SessionClaims;
}

export async function openLogin(
  keys: CookieKeys,
  value: string | undefined,
  now: Date,
): Promise<LoginClaims | undefined> {
  const payload = await unseal(keys.login, 'login', value, now);
  const { state, nonce, verifier, next } = payload ?? {};
  if (typeof state !== 'string' || typeof nonce !== 'string') return undefined;
  if (typeof verifier !== 'string' || typeof next !== 'string') return undefined;
  return { state, nonce, verifier, next };
}
