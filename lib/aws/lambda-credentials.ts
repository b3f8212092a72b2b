import { fromEnv } from '@aws-sdk/credential-providers';

/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles only (an esbuild alias in
 * serverless.yml): Lambda always hands a function its role's credentials in the environment, so the rest of
 * the default chain (INI files, SSO, process, web identity, IMDS, and the STS/SSO clients they bundle) is
 * dead weight in every cold start. Source runs (local stack, tests) keep the full chain.
 */
export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}) => fromEnv(init);

export const credentialsWillNeedRefresh = (credentials?: { expiration?: Date }): boolean =>
  credentials?.expiration !== undefined;

export const credentialsTreatedAsExpired = (credentials?: { expiration?: Date }): boolean =>
  credentials?.expiration !== undefined && credentials.expiration.getTime() - Date.now() < 300_000;
