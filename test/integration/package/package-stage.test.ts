import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

/** `npm run package -- ARGS`, stopped by the fleet check before serverless runs. */
async function packageWith(args: string[], env: Record<string, string> = {}) {
  return run('npm', ['run', '--silent', 'package', '--', ...args], {
    env: { ...process.env, FLEET_CONFIG: 'fleet.example.yaml', ...env },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  );
}

describe('npm run package -- --stage S', () => {
  it('refuses the example fleet for stage prod, each name that would be denied at its line', async () => {
    const result = await packageWith(['--stage', 'prod']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      'fleet.example.yaml:17: clusters[0].auth.eks.roleArn: arn:aws:iam::123456789012:role/gitops-sync-dev-access-hub is outside what stage prod may assume (arn:aws*:iam::*:role/gitops-sync-prod-access-*) — set ASSUMABLE_ROLE_ARNS or rename to gitops-sync-prod-access-hub',
      'fleet.example.yaml:22: clusters[1].auth.tokenSecret: gitops-sync/dev/spoke-1 is outside what stage prod may read (arn:aws*:secretsmanager:eu-west-1:*:secret:gitops-sync/prod/*) — set OWN_SECRETS_ARN or rename to gitops-sync/prod/spoke-1',
      'fleet.example.yaml:26: repositories[0].tokenSecret: gitops-sync/dev/github is outside what stage prod may read (arn:aws*:secretsmanager:eu-west-1:*:secret:gitops-sync/prod/*) — set OWN_SECRETS_ARN or rename to gitops-sync/prod/github',
      'fleet.example.yaml:28: repositories[1].tokenSecret: arn:aws:secretsmanager:eu-west-1:123456789012:secret:gitops-sync/dev/gitlab-AbCdEf is outside what stage prod may read (arn:aws*:secretsmanager:eu-west-1:*:secret:gitops-sync/prod/*) — set OWN_SECRETS_ARN or rename to gitops-sync/prod/gitlab',
      'package stopped: fleet.example.yaml is invalid for stage prod (fix it, or set FLEET_CONFIG)',
    ]);
  }, 60_000);

  it('checks --region too: the example names a secret ARN in eu-west-1', async () => {
    const result = await packageWith(['--stage', 'dev', '--region', 'us-east-1']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('(it is in eu-west-1; the stack deploys to us-east-1)');
  }, 60_000);

  it('refuses a Slack secret ARN the policy could never match, naming the setting', async () => {
    const partial = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:gitops-sync/dev/slack';
    const result = await packageWith([], { SLACK_SECRET_ARN: partial });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      `SLACK_SECRET_ARN: ${partial} is not a full secret ARN, and the policy grants exactly what is set — set SLACK_SECRET_ARN to the ARN with its six-character suffix (aws secretsmanager describe-secret --secret-id <name> --query ARN)`,
      'package stopped: a deploy setting names a secret the functions could not read',
    ]);
  }, 60_000);
});
