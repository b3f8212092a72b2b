import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { parse } from 'yaml';

const TABLE_FILE = fileURLToPath(new URL('./dynamodb-table.yml', import.meta.url));

interface TableResource {
  Properties: Omit<CreateTableCommandInput, 'TableName'> & {
    TimeToLiveSpecification?: { AttributeName: string; Enabled: boolean };
    PointInTimeRecoverySpecification?: unknown;
    SSESpecification?: unknown;
  };
}

/**
 * The CreateTable input for `tableName`, read from the same CloudFormation file serverless.yml deploys,
 * so the local stack and tests can never drift from the real table.
 */
export function tableDefinition(tableName: string): {
  create: CreateTableCommandInput;
  ttlAttribute: string | undefined;
} {
  const doc = parse(readFileSync(TABLE_FILE, 'utf8')) as { Resources: Record<string, TableResource> };
  const resource = Object.values(doc.Resources)[0];
  if (resource === undefined) throw new Error(`${TABLE_FILE} defines no table`);
  const {
    TimeToLiveSpecification,
    PointInTimeRecoverySpecification: _pitr,
    SSESpecification: _sse,
    ...properties
  } = resource.Properties;
  return {
    create: { ...properties, TableName: tableName },
    ttlAttribute: TimeToLiveSpecification?.AttributeName,
  };
}
