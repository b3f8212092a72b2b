import { createLocalJWKSet, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { LoginRefusedError } from '../../../lib/ui-auth/login-errors.js';
import { verifyIdToken } from '../../../lib/ui-auth/oidc-provider.js';

const ISSUER = 'https://login.example.com';
const AUDIENCE = 'gitops-sync';
const NONCE = 'nonce-of-this-login';
const expected = { issuer: ISSUER, audience: AUDIENCE, nonce: NONCE };

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

let issuerKey: SigningKey;
let otherKey: SigningKey;
let keys: ReturnType<typeof createLocalJWKSet>;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  issuerKey = pair.privateKey;
  otherKey = (await generateKeyPair('RS256')).privateKey;
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  keys = createLocalJWKSet({ keys: [jwk] });
});

async function idToken(
  overrides: { iss?: string; aud?: string; nonce?: string; expSeconds?: number } = {},
  key: SigningKey = issuerKey,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ nonce: overrides.nonce ?? NONCE, email: 'alice@example.com' })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setSubject('user-1')
    .setIssuer(overrides.iss ?? ISSUER)
    .setAudience(overrides.aud ?? AUDIENCE)
    .setIssuedAt(now - 10)
    .setExpirationTime(now + (overrides.expSeconds ?? 300))
    .sign(key);
}

describe('the ID token check (signature against the JWKS, iss, aud, exp, nonce)', () => {
  it('accepts a token of this issuer for this client and this login', async () => {
    const claims = await verifyIdToken(await idToken(), keys, expected);
    expect(claims).toMatchObject({ sub: 'user-1', email: 'alice@example.com' });
  });

  it.each([
    ['signed with another key (forged)', () => idToken({}, otherKey)],
    ['expired', () => idToken({ expSeconds: -120 })],
    ['for another client (audience)', () => idToken({ aud: 'someone-else' })],
    ['from another issuer', () => idToken({ iss: 'https://evil.example' })],
    ['of another login (nonce)', () => idToken({ nonce: 'another-nonce' })],
    [
      'with its payload changed after signing',
      async () => {
        const [header, , signature] = (await idToken()).split('.');
        const payload = Buffer.from(
          JSON.stringify({ sub: 'admin', iss: ISSUER, aud: AUDIENCE, nonce: NONCE, exp: 9e9, iat: 1 }),
        ).toString('base64url');
        return `${header}.${payload}.${signature}`;
      },
    ],
    [
      'unsigned (alg none)',
      async () => {
        const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
        const payload = Buffer.from(
          JSON.stringify({ sub: 'admin', iss: ISSUER, aud: AUDIENCE, nonce: NONCE, exp: 9e9, iat: 1 }),
        ).toString('base64url');
        return `${header}.${payload}.`;
      },
    ],
  ])('refuses a token %s', async (_name, make) => {
    await expect(verifyIdToken(await make(), keys, expected)).rejects.toBeInstanceOf(LoginRefusedError);
  });
});
