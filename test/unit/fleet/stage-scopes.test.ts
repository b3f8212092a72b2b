import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  deployScopes,
  globMatch,
  needsEksDescribe,
  preflightRoleInScope,
  roleInScope,
  runtimeScopes,
  scopeTemplates,
  secretInScope,
  secretSettingProblems,
} from '../../../lib/fleet/aws-scopes.js';
import { checkFleetFile, parseFleetFile } from '../../../lib/fleet/fleet-file.js';
import { readCfnYaml } from '../../helpers/cfn-yaml.js';

const dev = deployScopes('dev', 'eu-west-1');
const secret = secretInScope(dev);
const role = roleInScope(dev);
const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:';

describe("the stage's naming rules (defaults)", () => {
  it.each([
    ['a name under gitops-sync/<stage>/', 'gitops-sync/dev/spoke-1'],
    ['a deeper name under the prefix', 'gitops-sync/dev/team-a/github'],
    ['a full ARN under the prefix', `${ARN}gitops-sync/dev/gitlab-AbCdEf`],
    ['a partial ARN (no random suffix) under the prefix', `${ARN}gitops-sync/dev/gitlab`],
    [
      'an ARN in another partition and account',
      'arn:aws-cn:secretsmanager:eu-west-1:999999999999:secret:gitops-sync/dev/x',
    ],
  ])('a secret is inside: %s', (_name, value) => {
    expect(secret(value)).toBeUndefined();
  });

  it.each([
    [
      'a name without the stage',
      'gitops-sync/spoke-1',
      'gitops-sync/spoke-1 is outside what stage dev may read (arn:aws*:secretsmanager:eu-west-1:*:secret:gitops-sync/dev/*) — set OWN_SECRETS_ARN or rename to gitops-sync/dev/spoke-1',
    ],
    [
      "another stage's name",
      'gitops-sync/prod/github',
      'gitops-sync/prod/github is outside what stage dev may read (arn:aws*:secretsmanager:eu-west-1:*:secret:gitops-sync/dev/*) — set OWN_SECRETS_ARN or rename to gitops-sync/dev/github',
    ],
    [
      'a name outside our prefix altogether',
      'team/github',
      'team/github is outside what stage dev may read (arn:aws*:secretsmanager:eu-west-1:*:secret:gitops-sync/dev/*) — set OWN_SECRETS_ARN or rename to gitops-sync/dev/team/github',
    ],
    [
      'an ARN without the stage (its random suffix left out of the new name)',
      `${ARN}gitops-sync/gitlab-AbCdEf`,
      `${ARN}gitops-sync/gitlab-AbCdEf is outside what stage dev may read (arn:aws*:secretsmanager:eu-west-1:*:secret:gitops-sync/dev/*) — set OWN_SECRETS_ARN or rename to gitops-sync/dev/gitlab`,
    ],
    [
      'an ARN in another region than the stack',
      'arn:aws:secretsmanager:us-east-1:123456789012:secret:gitops-sync/dev/x-AbCdEf',
      'arn:aws:secretsmanager:us-east-1:123456789012:secret:gitops-sync/dev/x-AbCdEf is outside what stage dev may read (arn:aws*:secretsmanager:eu-west-1:*:secret:gitops-sync/dev/*) (it is in us-east-1; the stack deploys to eu-west-1) — set OWN_SECRETS_ARN or rename to gitops-sync/dev/x',
    ],
  ])('a secret is outside: %s', (_name, value, problem) => {
    expect(secret(value)).toBe(problem);
  });

  it.each([
    ['gitops-sync-dev-access-hub', true],
    ['gitops-sync-dev-access-', true],
    ['gitops-sync-prod-access-hub', false],
    ['gitops-sync-dev-hub', false],
    ['path/gitops-sync-dev-access-hub', false],
  ])('role %s inside: %s', (name, inside) => {
    expect(role(`arn:aws:iam::123456789012:role/${name}`) === undefined).toBe(inside);
  });

  it.each([
    ['gitops-sync-prod-hub', 'gitops-sync-dev-access-hub'],
    ['gitops-sync-prod-access-spoke', 'gitops-sync-dev-access-spoke'],
    ['eks-reader', 'gitops-sync-dev-access-eks-reader'],
  ])('role %s outside: the message says the setting, or the name to use (%s)', (name, renamed) => {
    expect(role(`arn:aws:iam::123456789012:role/${name}`)).toBe(
      `arn:aws:iam::123456789012:role/${name} is outside what stage dev may assume (arn:aws*:iam::*:role/gitops-sync-dev-access-*) — set ASSUMABLE_ROLE_ARNS or rename to ${renamed}`,
    );
  });
});

describe('the deploy settings widen or replace the defaults', () => {
  const scopes = deployScopes('prod', 'eu-west-1', {
    OWN_SECRETS_ARN: `${ARN}platform/*, ${ARN}gitops-sync/prod/*`,
    ASSUMABLE_ROLE_ARNS: 'arn:aws:iam::123456789012:role/eks-*',
  });

  it('takes each comma-separated pattern', () => {
    expect(secretInScope(scopes)('platform/github')).toBeUndefined();
    expect(secretInScope(scopes)('gitops-sync/prod/x')).toBeUndefined();
    expect(roleInScope(scopes)('arn:aws:iam::123456789012:role/eks-hub')).toBeUndefined();
  });

  it('names only the setting when the patterns are yours (a rename is not the fix)', () => {
    expect(secretInScope(scopes)('other/x')).toBe(
      `other/x is outside what stage prod may read (${ARN}platform/*, ${ARN}gitops-sync/prod/*) — set OWN_SECRETS_ARN`,
    );
    expect(roleInScope(scopes)('arn:aws:iam::999999999999:role/eks-hub')).toBe(
      'arn:aws:iam::999999999999:role/eks-hub is outside what stage prod may assume (arn:aws:iam::123456789012:role/eks-*) — set ASSUMABLE_ROLE_ARNS',
    );
  });
});

describe("the preflight's roles (PREFLIGHT_ASSUMABLE_ROLES)", () => {
  it("default to the stage's access roles, and name their own setting", () => {
    expect(
      preflightRoleInScope(dev)('arn:aws:iam::123456789012:role/gitops-sync-dev-access-eso'),
    ).toBeUndefined();
    expect(preflightRoleInScope(dev)('arn:aws:iam::123456789012:role/eso')).toBe(
      'arn:aws:iam::123456789012:role/eso is outside what stage dev may assume (arn:aws*:iam::*:role/gitops-sync-dev-access-*) — set PREFLIGHT_ASSUMABLE_ROLES or rename to gitops-sync-dev-access-eso',
    );
  });

  it('take the setting when given, apart from ASSUMABLE_ROLE_ARNS', () => {
    const scopes = deployScopes('dev', 'eu-west-1', {
      PREFLIGHT_ASSUMABLE_ROLES: 'arn:aws:iam::123456789012:role/eso-*',
    });
    expect(preflightRoleInScope(scopes)('arn:aws:iam::123456789012:role/eso-payments')).toBeUndefined();
    expect(roleInScope(scopes)('arn:aws:iam::123456789012:role/eso-payments')).toContain(
      'ASSUMABLE_ROLE_ARNS',
    );
  });
});

describe('at cold start', () => {
  const resolved = {
    OWN_SECRETS_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:gitops-sync/prod/*',
    ASSUMABLE_ROLE_ARNS: 'arn:aws:iam::123456789012:role/gitops-sync-prod-access-*',
  };

  it('checks nothing without the resolved patterns (the local stack, tests)', () => {
    expect(runtimeScopes({}, 'local', 'eu-west-1')).toBeUndefined();
  });

  it('knows the resolved stage defaults for what they are, so a miss suggests the rename', () => {
    const scopes = runtimeScopes(resolved, 'prod', 'eu-west-1');
    expect(scopes?.defaults).toEqual({ ownSecrets: true, assumableRoles: true, preflightRoles: true });
    expect(secretInScope(scopes ?? dev)('gitops-sync/spoke')).toContain('rename to gitops-sync/prod/spoke');
    // A name resolves in the function's own account and region: the same name in the pattern's region is in.
    expect(secretInScope(scopes ?? dev)('gitops-sync/prod/spoke')).toBeUndefined();
  });
});

describe('one source for serverless.yml and the checks', () => {
  it("serverless.yml's default patterns are scopeTemplates", () => {
    const service = readCfnYaml('serverless.yml') as {
      custom: { secretPrefix: string; defaults: Record<string, { '!Sub'?: string }> };
    };
    const sub = (key: string) =>
      (service.custom.defaults[key]?.['!Sub'] ?? '').replace(
        `\${self:custom.secretPrefix}`,
        service.custom.secretPrefix,
      );
    expect({ ownSecretsArn: sub('ownSecretsArn'), assumableRoleArns: sub('assumableRoleArns') }).toEqual(
      scopeTemplates(`\${sls:stage}`),
    );
  });

  it('deploy-settings.cjs grants DescribeCluster on exactly the clusters needsEksDescribe picks', () => {
    const settings = createRequire(import.meta.url)('../../../infra/deploy-settings.cjs') as {
      eksClusterArns(text: string): string[];
    };
    const text = [
      'clusters:',
      '  - { name: a, auth: { eks: { clusterName: a-eks, region: eu-west-1 } }, argocd: { namespace: argocd } }',
      '  - { name: b, server: "https://b.example", auth: { eks: { clusterName: b-eks, region: us-east-1 } } }',
      '  - name: c',
      '    server: https://c.example',
      `    caData: ${Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64')}`,
      '    auth: { eks: { clusterName: c-eks, region: eu-west-1 } }',
      '  - name: d',
      '    auth: { eks: { clusterName: d-eks, region: eu-west-1, roleArn: "arn:aws:iam::123456789012:role/r" } }',
      '  - { name: e, server: "https://e.example", auth: { tokenSecret: gitops-sync/dev/e } }',
    ].join('\n');
    const fleet = parseFleetFile(text);
    const own = fleet.clusters.filter(
      (c) => needsEksDescribe(c) && !('eks' in c.auth && c.auth.eks.roleArn !== undefined),
    );
    expect(own.map((c) => c.name)).toEqual(['a', 'b']);
    expect(settings.eksClusterArns(text)).toEqual([
      `arn:\${AWS::Partition}:eks:eu-west-1:\${AWS::AccountId}:cluster/a-eks`,
      `arn:\${AWS::Partition}:eks:us-east-1:\${AWS::AccountId}:cluster/b-eks`,
    ]);
  });
});

describe('checkFleetFile with scopes: file:line: field.path: problem', () => {
  it('reports every secret and role field outside the scopes at its line', () => {
    const text = [
      'clusters:',
      '  - name: hub',
      '    auth:',
      '      eks: { clusterName: hub, region: eu-west-1, roleArn: "arn:aws:iam::123456789012:role/hub" }',
      '    argocdUrl: https://argocd.example',
      '    argocdTokenSecret: gitops-sync/argocd',
      '  - name: spoke',
      '    server: https://spoke.example',
      '    auth: { tokenSecret: gitops-sync/dev/spoke }',
      'repositories:',
      '  - url: https://github.com/org/gitops',
      '    tokenSecret: github-token',
      'secretStores:',
      '  - { kind: ClusterSecretStore, name: aws, region: eu-west-1, role: "arn:aws:iam::123456789012:role/eso" }',
    ].join('\n');
    const result = checkFleetFile(text, 'f.yaml', { scopes: dev });
    expect(result.ok ? [] : result.problems.map((p) => p.split(' is outside')[0])).toEqual([
      'f.yaml:4: clusters[0].auth.eks.roleArn: arn:aws:iam::123456789012:role/hub',
      'f.yaml:6: clusters[0].argocdTokenSecret: gitops-sync/argocd',
      'f.yaml:12: repositories[0].tokenSecret: github-token',
      'f.yaml:14: secretStores[0].role: arn:aws:iam::123456789012:role/eso',
    ]);
  });

  it('says nothing of scopes without them (the local stack, validate without --stage)', () => {
    const text =
      'clusters:\n  - name: a\n    server: https://a.example\n    auth: { tokenSecret: anything }\n';
    expect(checkFleetFile(text, 'f.yaml').ok).toBe(true);
    expect(checkFleetFile(text, 'f.yaml', { scopes: dev }).ok).toBe(false);
  });

  it('the shipped example is inside stage dev, and not inside prod', () => {
    const example = readFileSync('fleet.example.yaml', 'utf8');
    expect(checkFleetFile(example, 'fleet.example.yaml', { scopes: dev })).toMatchObject({ ok: true });
    const prod = checkFleetFile(example, 'fleet.example.yaml', { scopes: deployScopes('prod', 'eu-west-1') });
    expect(prod.ok ? 0 : prod.problems.length).toBe(4);
  });
});

describe('globMatch (IAM resource matching)', () => {
  it.each([
    ['a*', 'abc', true],
    ['a*', 'a/b:c', true],
    ['a?c', 'abc', true],
    ['a?c', 'ac', false],
    ['a.c', 'abc', false],
    ['secret:x-??????', 'secret:x-AbCdEf', true],
  ])('%s ~ %s: %s', (pattern, value, matches) => {
    expect(globMatch(pattern, value)).toBe(matches);
  });
});

describe('deploy settings granted exactly as given (WEBHOOK_SECRET_ARN, SLACK_SECRET_ARN)', () => {
  it('accepts full ARNs in the stack region, and unset settings', () => {
    expect(
      secretSettingProblems(
        { WEBHOOK_SECRET_ARN: `${ARN}gitops-sync/dev/webhook-AbCdEf`, SLACK_SECRET_ARN: '' },
        'eu-west-1',
      ),
    ).toEqual([]);
  });

  it.each([
    [
      'a partial ARN (IAM would match nothing)',
      { SLACK_SECRET_ARN: `${ARN}gitops-sync/dev/slack` },
      `SLACK_SECRET_ARN: ${ARN}gitops-sync/dev/slack is not a full secret ARN, and the policy grants exactly what is set — set SLACK_SECRET_ARN to the ARN with its six-character suffix (aws secretsmanager describe-secret --secret-id <name> --query ARN)`,
    ],
    [
      'a secret in another region',
      {
        WEBHOOK_SECRET_ARN:
          'arn:aws:secretsmanager:us-east-1:123456789012:secret:gitops-sync/dev/webhook-AbCdEf',
      },
      'WEBHOOK_SECRET_ARN: arn:aws:secretsmanager:us-east-1:123456789012:secret:gitops-sync/dev/webhook-AbCdEf is in us-east-1; the stack deploys to eu-west-1 — set WEBHOOK_SECRET_ARN to a secret in eu-west-1 or deploy with --region us-east-1',
    ],
  ])('refuses %s', (_name, env, problem) => {
    expect(secretSettingProblems(env, 'eu-west-1')).toEqual([problem]);
  });
});
