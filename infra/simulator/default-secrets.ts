/**
 * Seed of the Secrets Manager double: secret name → SecretString (a string) or SecretBinary (bytes).
 * Values are fake. Covers a JSON object, a plain string, a binary secret, a literal `a.b` key next to a
 * nested `a: {b:}` value, and the secrets a `dataFrom.find` must match.
 */
export function defaultSecrets(): Record<string, string | Uint8Array> {
  return {
    'platform/web/database': JSON.stringify({
      url: 'postgres://web@db.internal:5432/web',
      password: 'sim-web-db',
    }),
    'platform/web/session': 'sim-session-key-not-json',
    // Has "token" but not the "spokeBToken" the spoke-b overlay asks for.
    'platform/web/analytics': JSON.stringify({ token: 'sim-analytics-token' }),
    'platform/api/config': JSON.stringify({ LOG_LEVEL: 'info', FEATURE_FLAGS: 'search,exports' }),
    'platform/auth/oidc': JSON.stringify({
      'client.secret': 'sim-literal-dotted-key',
      client: { id: 'web-client', secret: 'sim-nested' },
    }),
    'platform/search/keystore': new Uint8Array([0xfe, 0xed, 0xfe, 0xed, 0x00, 0x00, 0x00, 0x02]),
    'payments/checkout/stripe': JSON.stringify({ apiKey: 'sk_test_sim_not_real' }),
    'payments/ledger/db': JSON.stringify({ username: 'ledger', password: 'sim-ledger-db' }),
    'payments/payouts/bank-api': JSON.stringify({ token: 'sim-bank-token' }),
    'payments/payouts/signing-key': JSON.stringify({ pem: 'sim-not-a-key' }),
    'payments/gateway/tls': JSON.stringify({ key: 'sim-tls-key', crt: 'sim-tls-crt' }),
  };
}
