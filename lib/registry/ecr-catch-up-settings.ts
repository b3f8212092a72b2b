import { ConfigError } from '../errors.js';

/**
 * Reconcile's ECR catch-up (docs/registry-triggers.md): opt-in, so a fleet without ECR makes no call.
 * `ECR_REPOSITORY_ARNS` names the repositories (IAM ARN patterns, `*` allowed in the name) the reconcile
 * role may call `ecr:DescribeImages` on; serverless.yml grants exactly these, and a source on another
 * repository is skipped (counted) without a call.
 */
export interface EcrCatchUpSettings {
  readonly repositoryArns: readonly string[];
  /** `ECR_ENDPOINT`: the ECR endpoint override (the local double, tests, VPC endpoints). */
  readonly endpoint?: string;
  /** `ECR_CATCH_UP_MAX_REPOSITORIES`: repositories described per pass (default 50); the rest wait their turn. */
  readonly maxRepositories: number;
}

type Env = Readonly<Record<string, string | undefined>>;

const REPOSITORY_ARN =
  /^arn:(?:aws[a-z-]*|\*):ecr:(?:[a-z0-9-]+|\*):(?:[0-9]{12}|\*):repository\/[a-z0-9._\-/*?]+$/;

/** Undefined when `ECR_REPOSITORY_ARNS` is unset or empty: no catch-up, no ECR client. */
export function ecrCatchUpSettings(env: Env): EcrCatchUpSettings | undefined {
  const raw = env.ECR_REPOSITORY_ARNS?.trim() ?? '';
  const endpoint = env.ECR_ENDPOINT?.trim() ?? '';
  if (endpoint !== '' && !/^https?:\/\/[^\s/]+/.test(endpoint))
    throw new ConfigError('ECR_ENDPOINT', 'must be an absolute http(s) URL');
  if (raw === '') return undefined;
  const repositoryArns = raw.split(',').map((p) => p.trim());
  for (const pattern of repositoryArns) {
    if (!REPOSITORY_ARN.test(pattern))
      throw new ConfigError(
        'ECR_REPOSITORY_ARNS',
        'must be ECR repository ARN patterns (arn:aws:ecr:<region>:<account>:repository/<name>), comma-separated',
      );
  }
  const max = env.ECR_CATCH_UP_MAX_REPOSITORIES?.trim() ?? '';
  if (max !== '' && (!/^\d+$/.test(max) || Number(max) < 1 || Number(max) > 1000))
    throw new ConfigError('ECR_CATCH_UP_MAX_REPOSITORIES', 'must be between 1 and 1000');
  return {
    repositoryArns,
    ...(endpoint === '' ? {} : { endpoint }),
    maxRepositories: max === '' ? 50 : Number(max),
  };
}
