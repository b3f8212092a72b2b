import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lib/errors.js';
import { uiAuthSettings } from '../../../lib/ui-auth/settings.js';

const OIDC = {
  UI_AUTH: 'oidc',
  OIDC_ISSUER: 'https://login.example.com/realms/ops',
  OIDC_CLIENT_ID: 'gitops-sync',
  OIDC_ALLOWED: '@example.com',
  UI_SESSION_SECRET: 'x'.repeat(32),
};
const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:gitops-sync/prod/ui-session';

describe('UI_AUTH and the OIDC settings', () => {
  it.each([
    ['none locally by default', {}, 'none'],
    ['iam inside Lambda by default', { AWS_LAMBDA_FUNCTION_NAME: 'gitops-sync-prod-api' }, 'iam'],
    ['what UI_AUTH says, in any case', { UI_AUTH: 'IAM' }, 'iam'],
  ])('is %s', (_name, env, mode) => {
    expect(uiAuthSettings(env).mode).toBe(mode);
  });

  it('reads a confidential client from Secrets Manager, and a public one without a secret', () => {
    const stored = uiAuthSettings({
      ...OIDC,
      UI_SESSION_SECRET: undefined,
      UI_SESSION_SECRET_ARN: ARN,
      OIDC_CLIENT_SECRET_ARN: ARN.replace('ui-session', 'oidc-client'),
    });
    expect(stored).toMatchObject({
      mode: 'oidc',
      sessionSecretArn: ARN,
      clientSecretArn: expect.any(String),
    });
    const pub = uiAuthSettings(OIDC);
    expect(pub).not.toHaveProperty('clientSecret');
    expect(pub).not.toHaveProperty('clientSecretArn');
  });

  it.each([
    ['an unknown mode', { UI_AUTH: 'basic' }, 'UI_AUTH'],
    ['no issuer', { OIDC_ISSUER: '' }, 'OIDC_ISSUER'],
    ['an http issuer off loopback', { OIDC_ISSUER: 'http://login.example.com' }, 'OIDC_ISSUER'],
    ['an issuer that is no URL', { OIDC_ISSUER: 'login.example.com' }, 'OIDC_ISSUER'],
    ['no client id', { OIDC_CLIENT_ID: ' ' }, 'OIDC_CLIENT_ID'],
    ['no allow list', { OIDC_ALLOWED: '' }, 'OIDC_ALLOWED'],
    ['no session secret', { UI_SESSION_SECRET: '' }, 'UI_SESSION_SECRET_ARN'],
    ['a short session secret', { UI_SESSION_SECRET: 'short-secret' }, 'UI_SESSION_SECRET'],
    ['both session secrets', { UI_SESSION_SECRET_ARN: ARN }, 'UI_SESSION_SECRET'],
    [
      'a session secret ARN of another service',
      { UI_SESSION_SECRET: '', UI_SESSION_SECRET_ARN: 'arn:aws:ssm:eu-west-1:123456789012:parameter/x' },
      'UI_SESSION_SECRET_ARN',
    ],
    ['both client secrets', { OIDC_CLIENT_SECRET: 'c', OIDC_CLIENT_SECRET_ARN: ARN }, 'OIDC_CLIENT_SECRET'],
  ])('stops start-up on %s with one line naming %s and no value', (_name, env, setting) => {
    let error: unknown;
    try {
      uiAuthSettings({ ...OIDC, ...env });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect((error as ConfigError).setting).toBe(setting);
    expect(message.startsWith(`${setting}: `)).toBe(true);
    expect(message).not.toContain('\n');
    expect(message).not.toContain('short-secret');
    expect(message).not.toContain('x'.repeat(32));
  });
});
