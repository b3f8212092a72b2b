import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, type Tags } from 'yaml';

// CloudFormation short-form tags kept as plain tagged values: the test reads the policy shape, not CFN.
const cfnTags: Tags = ['!Sub', '!GetAtt', '!Ref'].flatMap((tag) => [
  { tag, resolve: (value: string) => ({ [tag]: value }) },
  { tag, collection: 'seq' as const, resolve: (value: unknown) => ({ [tag]: value }) },
]);

interface Statement {
  Effect: string;
  Action: string[];
  Resource: unknown;
}

const doc = parse(readFileSync('infra/iam-roles.yml', 'utf8'), { customTags: cfnTags }) as {
  Resources: Record<string, { Properties: { Policies: { PolicyDocument: { Statement: Statement[] } }[] } }>;
};

const statements = (role: string) =>
  doc.Resources[role]?.Properties.Policies.flatMap((p) => p.PolicyDocument.Statement) ?? [];
const actions = (role: string) =>
  statements(role)
    .flatMap((s) => s.Action)
    .sort();

describe('the per-function IAM roles', () => {
  it('define one role per function', () => {
    expect(Object.keys(doc.Resources).sort()).toEqual([
      'ApiRole',
      'FanoutRole',
      'ReconcileRole',
      'TrackRole',
      'WebhookRole',
    ]);
  });

  it('never allow a wildcard action', () => {
    const all = Object.keys(doc.Resources).flatMap(actions);
    expect(all.filter((a) => a.includes('*'))).toEqual([]);
    expect(
      Object.keys(doc.Resources)
        .flatMap(statements)
        .every((s) => s.Effect === 'Allow'),
    ).toBe(true);
  });

  it('use a wildcard resource only for the Secrets Manager actions that cannot be scoped', () => {
    const wildcard = Object.keys(doc.Resources)
      .flatMap(statements)
      .filter((s) => s.Resource === '*')
      .flatMap((s) => s.Action);
    expect(wildcard.sort()).toEqual(['secretsmanager:BatchGetSecretValue', 'secretsmanager:ListSecrets']);
  });

  it('let the webhook only record deliveries, enqueue and read its secret', () => {
    expect(actions('WebhookRole')).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:PutItem',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'secretsmanager:GetSecretValue',
      'sqs:SendMessage',
    ]);
  });

  it('keep the read API read-only', () => {
    expect(actions('ApiRole').filter((a) => a.startsWith('dynamodb:'))).toEqual([
      'dynamodb:GetItem',
      'dynamodb:Query',
    ]);
  });
});
