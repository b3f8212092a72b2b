import { ConfigError } from '../errors.js';
import {
  type AwsScopes,
  PREFLIGHT_ASSUMABLE_ROLES,
  parseRolePatterns,
  runtimeScopes,
} from '../fleet/aws-scopes.js';
import { type Env, text } from './env-read.js';

/** Where `FLEET_SOURCE` keeps the fleet file: an SSM parameter or an S3 object. */
export type FleetLocation =
  | { readonly kind: 'ssm'; readonly name: string }
  | { readonly kind: 's3'; readonly bucket: string; readonly key: string };

/** `PREFLIGHT_ASSUMABLE_ROLES`: comma-separated IAM role ARN patterns (wildcards allowed). */
export function rolePatterns(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const patterns = parseRolePatterns(value);
  for (const pattern of patterns) {
    if (!/^arn:[*a-z-]+:iam::[*?\d]*:role\/\S+$/.test(pattern))
      throw new ConfigError(PREFLIGHT_ASSUMABLE_ROLES, `${pattern} is not an IAM role ARN pattern`);
  }
  return patterns;
}

/** The fleet's bounds as serverless.yml resolves them (`OWN_SECRETS_ARN`, `ASSUMABLE_ROLE_ARNS`). */
export function awsScopes(env: Env): AwsScopes | undefined {
  for (const name of ['OWN_SECRETS_ARN', 'ASSUMABLE_ROLE_ARNS']) {
    const raw = text(env, name);
    if (raw?.split(',').some((p) => !/^(arn:\S+|\*)$/.test(p.trim())))
      throw new ConfigError(name, 'must be IAM resource ARN patterns, comma-separated');
  }
  const stage = text(env, 'STAGE') ?? 'local';
  const region = text(env, 'AWS_REGION') ?? text(env, 'AWS_DEFAULT_REGION') ?? 'us-east-1';
  return runtimeScopes(env, stage, region);
}

export function fleetLocation(env: Env, name: string): FleetLocation | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  const ssm = /^ssm:((?:arn:aws[a-z-]*:ssm:[a-z0-9-]+:\d{12}:parameter)?\/?[A-Za-z0-9_.\-/]{1,2048})$/.exec(
    raw,
  );
  if (ssm?.[1] !== undefined) return { kind: 'ssm', name: ssm[1] };
  const s3 = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\/(.{1,1024})$/.exec(raw);
  if (s3?.[1] !== undefined && s3[2] !== undefined) return { kind: 's3', bucket: s3[1], key: s3[2] };
  throw new ConfigError(name, 'must be ssm:/path/to/parameter or s3://bucket/key');
}
