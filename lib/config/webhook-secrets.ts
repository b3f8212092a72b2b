import { arn, type Env, optional, secretList } from './env-read.js';

export interface WebhookSecretsConfig {
  /**
   * Secrets Manager secret holding `{"github": "...", "gitlab": "...", "bitbucket": ...}`, one field per
   * provider route name (each may be a list, for rotation).
   */
  readonly secretArn?: string;
  readonly github: readonly string[];
  readonly gitlab: readonly string[];
  readonly bitbucket?: readonly string[];
  readonly 'bitbucket-server'?: readonly string[];
  readonly 'azure-devops'?: readonly string[];
  readonly gitea?: readonly string[];
  readonly generic?: readonly string[];
  /** `ECR_EVENTS_SECRET`: signs `/webhooks/ecr` (locally, tests; in AWS EventBridge invokes the function). */
  readonly ecr?: readonly string[];
  /** `HARBOR_WEBHOOK_SECRET`: the `Authorization` header Harbor's webhook sends to `/webhooks/harbor`. */
  readonly harbor?: readonly string[];
}

/** Every route's accepted secrets given directly (comma-separated for rotation), or the ARN holding them. */
export function webhookSecretsConfig(env: Env): WebhookSecretsConfig {
  return {
    ...optional('secretArn', arn(env, 'WEBHOOK_SECRET_ARN', 'secretsmanager')),
    github: secretList(env, 'GITHUB_WEBHOOK_SECRET'),
    gitlab: secretList(env, 'GITLAB_WEBHOOK_TOKEN'),
    bitbucket: secretList(env, 'BITBUCKET_WEBHOOK_SECRET'),
    'bitbucket-server': secretList(env, 'BITBUCKET_SERVER_WEBHOOK_SECRET'),
    'azure-devops': secretList(env, 'AZURE_DEVOPS_WEBHOOK_SECRET'),
    gitea: secretList(env, 'GITEA_WEBHOOK_SECRET'),
    generic: secretList(env, 'GENERIC_WEBHOOK_SECRET'),
    ecr: secretList(env, 'ECR_EVENTS_SECRET'),
    harbor: secretList(env, 'HARBOR_WEBHOOK_SECRET'),
  };
}
