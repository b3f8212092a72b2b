import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../lib/cli/main.js';

let dir: string;
let fleet: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'validate-stage-'));
  fleet = join(dir, 'fleet.yaml');
  await writeFile(
    fleet,
    [
      'clusters:',
      '  - name: hub',
      '    auth:',
      '      eks: { clusterName: hub, region: eu-west-1, roleArn: "arn:aws:iam::123456789012:role/gitops-sync-prod-hub" }',
      '    argocd: { namespace: argocd }',
      'repositories:',
      '  - url: https://github.com/org/gitops',
      '    tokenSecret: gitops-sync/github',
      '',
    ].join('\n'),
  );
});

afterAll(() => rm(dir, { recursive: true, force: true }));

async function validate(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['validate', ...argv], {
    env,
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out, err };
}

describe('gitops-sync validate --stage', () => {
  it('exits 0 for the shipped example with --stage dev', async () => {
    expect(await validate(['--stage', 'dev', 'fleet.example.yaml'])).toEqual({
      code: 0,
      out: [
        "fleet.example.yaml: valid (2 clusters, 2 repositories, inside stage dev's policies in eu-west-1)",
      ],
      err: [],
    });
  });

  it('without --stage judges the form only, as before', async () => {
    expect((await validate([fleet])).code).toBe(0);
  });

  it('names each secret and role outside the stage, at its line, with the setting to change', async () => {
    const result = await validate(['--stage', 'dev', fleet]);
    expect(result).toEqual({
      code: 1,
      out: [],
      err: [
        `${fleet}:4: clusters[0].auth.eks.roleArn: arn:aws:iam::123456789012:role/gitops-sync-prod-hub is outside what stage dev may assume (arn:aws*:iam::*:role/gitops-sync-dev-access-*) — set ASSUMABLE_ROLE_ARNS or rename to gitops-sync-dev-access-hub`,
        `${fleet}:8: repositories[0].tokenSecret: gitops-sync/github is outside what stage dev may read (arn:aws*:secretsmanager:eu-west-1:*:secret:gitops-sync/dev/*) — set OWN_SECRETS_ARN or rename to gitops-sync/dev/github`,
      ],
    });
  });

  it('takes the deploy settings from the environment, as npm run package does', async () => {
    const env = {
      OWN_SECRETS_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:gitops-sync/*',
      ASSUMABLE_ROLE_ARNS: 'arn:aws:iam::123456789012:role/gitops-sync-prod-*',
    };
    expect((await validate(['--stage', 'prod', fleet], env)).code).toBe(0);
  });

  it('checks the region of a secret ARN against --region', async () => {
    const arn = join(dir, 'arn.yaml');
    await writeFile(
      arn,
      'clusters:\n  - name: a\n    server: https://a.example\n    auth: { tokenSecret: "arn:aws:secretsmanager:us-east-1:123456789012:secret:gitops-sync/dev/a-AbCdEf" }\n',
    );
    expect((await validate(['--stage', 'dev', '--region', 'us-east-1', arn])).code).toBe(0);
    const elsewhere = await validate(['--stage', 'dev', arn]);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.err[0]).toContain('(it is in us-east-1; the stack deploys to eu-west-1)');
  });

  it.each([
    ['--stage with --local', ['--stage', 'dev', '--local', 'fleet.example.yaml']],
    ['a stage name serverless would refuse', ['--stage', 'dev/x', 'fleet.example.yaml']],
  ])('refuses %s (exit 2)', async (_name, argv) => {
    expect((await validate(argv)).code).toBe(2);
  });
});
