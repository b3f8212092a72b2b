import { createPrivateKey } from 'node:crypto';

const PEM_HEADERS = ['-----BEGIN RSA PRIVATE KEY-----', '-----BEGIN PRIVATE KEY-----'] as const;

/**
 * Why this text cannot sign a GitHub App JWT, or undefined when it can: an RSA private key in PEM, PKCS#1
 * (`BEGIN RSA PRIVATE KEY`, what GitHub hands out) or PKCS#8 (`BEGIN PRIVATE KEY`). Never quotes the key.
 */
export function privateKeyProblem(pem: string): string | undefined {
  const text = normalizePem(pem);
  if (!PEM_HEADERS.some((header) => text.startsWith(header)))
    return 'must be a PEM private key (PKCS#1 "BEGIN RSA PRIVATE KEY" or PKCS#8 "BEGIN PRIVATE KEY")';
  try {
    const key = createPrivateKey({ key: text, format: 'pem' });
    return key.asymmetricKeyType === 'rsa'
      ? undefined
      : 'must be an RSA private key (GitHub Apps sign with RS256)';
  } catch {
    return 'is not a readable PEM private key (PKCS#1 or PKCS#8)';
  }
}

/** A key pasted with `\n` escapes (an environment variable, a one-line secret) made PEM again. */
export function normalizePem(pem: string): string {
  return pem.trim().replace(/\\n/g, '\n');
}
