import { AZURE_DEVOPS_PROVIDER } from './azure-devops.js';
import { BITBUCKET_PROVIDER } from './bitbucket.js';
import { BITBUCKET_SERVER_PROVIDER } from './bitbucket-server.js';
import { ECR_PROVIDER } from './ecr.js';
import { GENERIC_PROVIDER } from './generic.js';
import { GITEA_PROVIDER } from './gitea.js';
import { GITHUB_PROVIDER } from './github.js';
import { GITLAB_PROVIDER } from './gitlab.js';
import { HARBOR_PROVIDER } from './harbor.js';
import type { WebhookProvider } from './provider-model.js';
import type { GitProvider } from './push-event.js';

/**
 * Every host `POST /webhooks/{provider}` takes, one row each: how it signs, where it names the event and
 * the delivery, which events are pushes or pings, and its payload normaliser. Each row sits in its host's
 * file beside the normaliser; `provider-engine.ts` reads a delivery through the row (the shared header,
 * id and body handling), `verify-delivery.ts` checks its signature scheme. Events other than a push or
 * ping are answered 202 ignored.
 */
export const WEBHOOK_PROVIDERS: Readonly<Record<GitProvider, WebhookProvider>> = {
  github: GITHUB_PROVIDER,
  gitlab: GITLAB_PROVIDER,
  bitbucket: BITBUCKET_PROVIDER,
  'bitbucket-server': BITBUCKET_SERVER_PROVIDER,
  'azure-devops': AZURE_DEVOPS_PROVIDER,
  gitea: GITEA_PROVIDER,
  generic: GENERIC_PROVIDER,
  ecr: ECR_PROVIDER,
  harbor: HARBOR_PROVIDER,
};
