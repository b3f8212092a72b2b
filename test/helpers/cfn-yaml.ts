import { readFileSync } from 'node:fs';
import { parse, type Tags } from 'yaml';

// CloudFormation short-form tags kept as plain `{ "!Tag": value }` objects: tests read shapes, not CFN.
const TAGS = ['!Sub', '!GetAtt', '!Ref', '!If', '!Not', '!Equals', '!Split', '!Join'];
const cfnTags: Tags = TAGS.flatMap((tag) => [
  { tag, resolve: (value: string) => ({ [tag]: value }) },
  {
    tag,
    collection: 'seq' as const,
    resolve: (value: { toJSON(): unknown }) => ({ [tag]: value.toJSON() }),
  },
]);

export function readCfnYaml(path: string): unknown {
  return parse(readFileSync(path, 'utf8'), { customTags: cfnTags });
}

export interface IamStatement {
  readonly Effect: string;
  readonly Action: readonly string[];
  readonly Resource: unknown;
  /** The CloudFormation condition the statement exists under (`!If [Cond, statement, !Ref AWS::NoValue]`). */
  readonly condition?: string;
}

type RoleDoc = {
  Resources: Record<string, { Properties: { Policies: { PolicyDocument: { Statement: unknown[] } }[] } }>;
};

export const iamRoles = (): RoleDoc => readCfnYaml('infra/iam-roles.yml') as RoleDoc;

/** Every statement of a role, conditional ones included (tagged with their condition). */
export function roleStatements(doc: RoleDoc, role: string): IamStatement[] {
  const raw = doc.Resources[role]?.Properties.Policies.flatMap((p) => p.PolicyDocument.Statement) ?? [];
  return raw.map((entry) => {
    const conditional = (entry as { '!If'?: [string, IamStatement, unknown] })['!If'];
    if (conditional === undefined) return entry as IamStatement;
    return { ...conditional[1], condition: conditional[0] };
  });
}

/** `!GetAtt FanoutQueue.Arn` → `FanoutQueue`; other resources as written. */
export function resourceNames(resource: unknown): string[] {
  const list = Array.isArray(resource) ? resource : [resource];
  return list.map((r) => {
    const att = (r as { '!GetAtt'?: string } | null)?.['!GetAtt'];
    return typeof att === 'string' ? (att.split('.')[0] ?? att) : JSON.stringify(r);
  });
}
