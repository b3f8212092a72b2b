import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { iamRoles, readCfnYaml, resourceNames, roleStatements } from '../../helpers/cfn-yaml.js';

const doc = iamRoles();
const roles = Object.keys(doc.Resources);
const statements = (role: string) => roleStatements(doc, role);
const actions = (role: string) =>
  statements(role)
    .flatMap((s) => s.Action)
    .sort();
const serverless = readFileSync('serverless.yml', 'utf8');
// Serverless variables as written in the templates (not JS template strings).
const v = (name: string) => ['$', '{', name, '}'].join('');

describe('the per-function IAM roles', () => {
  it('define one role per function, each named for its stage', () => {
    expect(roles.sort()).toEqual(['ApiRole', 'FanoutRole', 'ReconcileRole', 'TrackRole', 'WebhookRole']);
    for (const role of roles) {
      const name = (doc.Resources[role]?.Properties as unknown as { RoleName?: string } | undefined)
        ?.RoleName;
      expect(name).toBe(`gitops-sync-${v('sls:stage')}-${role.replace(/Role$/, '').toLowerCase()}`);
    }
  });

  it('never allow a wildcard action', () => {
    const all = roles.flatMap(actions);
    expect(all.filter((a) => a.includes('*'))).toEqual([]);
    expect(roles.flatMap(statements).every((s) => s.Effect === 'Allow')).toBe(true);
  });

  it('use a wildcard resource only for the Secrets Manager actions that cannot be scoped', () => {
    const wildcard = new Set(
      roles
        .flatMap(statements)
        .filter((s) => s.Resource === '*')
        .flatMap((s) => s.Action),
    );
    expect([...wildcard].sort()).toEqual([
      'secretsmanager:BatchGetSecretValue',
      'secretsmanager:ListSecrets',
    ]);
  });

  it('scope the default secret and role patterns to the stage, never the whole account', () => {
    const defaults = serverless.slice(
      serverless.indexOf('  defaults:'),
      serverless.indexOf('  fleetEnvironment:'),
    );
    expect(defaults).not.toMatch(/secret:\*/);
    expect(defaults).not.toMatch(/role\/gitops-sync-\*/);
    for (const line of defaults.split('\n').filter((l) => l.includes('!Sub'))) {
      expect(line).toMatch(/\$\{(sls:stage|self:custom\.secretPrefix)\}/);
    }
    expect(serverless).toContain(`secretPrefix: gitops-sync/${v('sls:stage')}`);
  });

  it('let the webhook only record deliveries (claim, mark enqueued, offload a large one), enqueue and read its secret', () => {
    expect(actions('WebhookRole')).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      's3:GetObject',
      'secretsmanager:GetSecretValue',
      'sqs:SendMessage',
      'ssm:GetParameter',
    ]);
  });

  it('let the webhook delete only open-rollout entries (the release engine a check run’s Retry runs)', () => {
    const deletes = statements('WebhookRole').filter((s) => s.Action.includes('dynamodb:DeleteItem'));
    expect(deletes).toHaveLength(1);
    expect(deletes[0]?.Action).toEqual(['dynamodb:DeleteItem']);
    expect(JSON.stringify(deletes[0])).toContain('"dynamodb:LeadingKeys":["OPEN"]');
  });

  it('let the API read, and write only release control state on rollout summaries and freezes', () => {
    expect(actions('ApiRole').filter((a) => a.startsWith('dynamodb:'))).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    const writes = statements('ApiRole').filter((s) => s.Action.includes('dynamodb:UpdateItem'));
    expect(writes).toHaveLength(1);
    const raw = readCfnYaml('infra/iam-roles.yml') as {
      Resources: {
        ApiRole: { Properties: { Policies: { PolicyDocument: { Statement: Record<string, unknown>[] } }[] } };
      };
    };
    const write = raw.Resources.ApiRole.Properties.Policies[0]?.PolicyDocument.Statement.find((s) =>
      (s.Action as string[] | undefined)?.includes('dynamodb:UpdateItem'),
    );
    expect(write?.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ROLLOUT#*', 'FREEZES', 'PAYLOAD#*', 'LOGIN#*'] },
    });
  });

  it('let the API query every index of the table (lists, short SHAs, app histories new and old)', () => {
    const table = readCfnYaml('infra/dynamodb-table.yml') as {
      Resources: { OrchestratorTable: { Properties: { GlobalSecondaryIndexes: { IndexName: string }[] } } };
    };
    const indexes = table.Resources.OrchestratorTable.Properties.GlobalSecondaryIndexes.map(
      (i) => i.IndexName,
    );
    expect(indexes).toContain('gsi4');
    const queried = statements('ApiRole')
      .filter((s) => s.Action.includes('dynamodb:Query'))
      .flatMap((s) => resourceNames(s.Resource))
      .flatMap((r) => /\/index\/(\w+)/.exec(r)?.[1] ?? []);
    expect(queried.sort()).toEqual(indexes.sort());
  });

  it('give read-only API callers the GET routes only, operators the control routes too', () => {
    const access = readCfnYaml('infra/api-access.yml') as {
      Resources: Record<string, { Properties: { PolicyDocument: { Statement: { Resource: unknown }[] } } }>;
    };
    const routes = (policy: string) =>
      (access.Resources[policy]?.Properties.PolicyDocument.Statement ?? [])
        .flatMap((st) => st.Resource as { '!Sub': string }[])
        .map((arn) => arn['!Sub'].replace(/^arn:.*:\$\{HttpApi\}\/\*\//, ''));
    expect(routes('ApiReadOnlyPolicy')).toEqual(['GET/*']);
    expect(routes('ApiOperatorPolicy').sort()).toEqual(
      [
        'GET/*',
        'POST/rollouts/*/pause',
        'POST/rollouts/*/resume',
        'POST/rollouts/*/abort',
        'POST/rollouts/*/retry',
        'POST/freezes',
        'DELETE/freezes/*',
        'POST/unpin',
      ].sort(),
    );
  });

  it('grant the Slack secret only to the functions that post to Slack, and only when it is set', () => {
    const slack = (role: string) => statements(role).filter((s) => s.condition === 'HasSlackSecret');
    expect(roles.filter((r) => slack(r).length > 0).sort()).toEqual([
      'FanoutRole',
      'ReconcileRole',
      'TrackRole',
    ]);
    for (const role of ['FanoutRole', 'TrackRole', 'ReconcileRole']) {
      expect(slack(role)[0]?.Resource).toBe(v('self:custom.slackSecretArn'));
    }
  });

  it('let only reconcile describe ECR images, on the configured repositories, only when they are set', () => {
    const ecr = (role: string) => statements(role).filter((s) => s.Action.some((a) => a.startsWith('ecr:')));
    expect(roles.filter((r) => ecr(r).length > 0)).toEqual(['ReconcileRole']);
    expect(ecr('ReconcileRole')).toEqual([
      {
        Effect: 'Allow',
        Action: ['ecr:DescribeImages'],
        Resource: { '!Split': [',', v('self:custom.ecrRepositoryArns')] },
        condition: 'HasEcrCatchUp',
      },
    ]);
    expect(serverless).toContain(`ecrRepositoryArns: ${v("env:ECR_REPOSITORY_ARNS, ''")}`);
  });
});
