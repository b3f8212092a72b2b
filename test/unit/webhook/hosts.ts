import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';

export type Payload = Record<string, unknown>;

export type HostFixture =
  | 'bitbucket-repo-push'
  | 'bitbucket-pullrequest-created'
  | 'bitbucket-server-refs-changed'
  | 'bitbucket-server-refs-changed-delete'
  | 'bitbucket-server-pr-opened'
  | 'azuredevops-git-push'
  | 'azuredevops-pullrequest-created'
  | 'gitea-push'
  | 'gitea-issues'
  | 'gogs-push';

/** A fresh copy of a published host sample (see test/fixtures/hosts/SOURCES.md). */
export function hostFixture(name: HostFixture): Payload {
  return JSON.parse(readFileSync(new URL(`../../fixtures/hosts/${name}.json`, import.meta.url), 'utf8'));
}

/** An independent oracle: lowercase hex HMAC-SHA256 of the exact body bytes. */
export function hmacHex(body: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

export const SECRETS = {
  bitbucket: 'bb-secret-1f3870be274f6c49',
  bitbucketServer: 'bbs-secret-b6d767d2f8ed5d21',
  azure: 'azure-password-a3dcb4d229de6fde',
  gitea: 'gitea-secret-0cc175b9c0f1b6a8',
  generic: 'generic-secret-92eb5ffee6ae2fec',
} as const;

export const ALL_SECRETS = {
  github: [],
  gitlab: [],
  bitbucket: [SECRETS.bitbucket],
  'bitbucket-server': [SECRETS.bitbucketServer],
  'azure-devops': [SECRETS.azure],
  gitea: [SECRETS.gitea],
  generic: [SECRETS.generic],
};

export interface SignedDelivery {
  readonly provider: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** The headers each host sends with a signed delivery of `body` (per its documentation). */
export const sign = {
  bitbucket: (
    body: string,
    id = 'a1b2c3d4-0000-4000-8000-000000000001',
    event = 'repo:push',
  ): SignedDelivery => ({
    provider: 'bitbucket',
    body,
    headers: {
      'content-type': 'application/json',
      'x-event-key': event,
      'x-hook-uuid': '{3f1a6b4e-9c1d-4a57-8f0e-2d6b7c8e9f10}',
      'x-request-uuid': id,
      'x-attempt-number': '1',
      'x-hub-signature': `sha256=${hmacHex(body, SECRETS.bitbucket)}`,
    },
  }),
  bitbucketServer: (body: string, id = 'bbs-req-1', event = 'repo:refs_changed'): SignedDelivery => ({
    provider: 'bitbucket-server',
    body,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'x-event-key': event,
      'x-request-id': id,
      'x-hub-signature': `sha256=${hmacHex(body, SECRETS.bitbucketServer)}`,
    },
  }),
  azure: (body: string, password: string = SECRETS.azure): SignedDelivery => ({
    provider: 'azure-devops',
    body,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'x-vss-activityid': '7b0a1c9e-5d7f-4a0e-9b1e-3c2d4f6a8b90',
      authorization: basicAuth('argo', password),
    },
  }),
  gitea: (body: string, id = 'gitea-delivery-1', event = 'push'): SignedDelivery => ({
    provider: 'gitea',
    body,
    headers: {
      'content-type': 'application/json',
      'x-gitea-event': event,
      'x-gitea-delivery': id,
      'x-gitea-signature': hmacHex(body, SECRETS.gitea),
      'x-gogs-event': event,
      'x-gogs-delivery': id,
      'x-gogs-signature': hmacHex(body, SECRETS.gitea),
      'x-github-event': event,
      'x-hub-signature-256': `sha256=${hmacHex(body, SECRETS.gitea)}`,
    },
  }),
  gogs: (body: string, id = 'gogs-delivery-1', event = 'push'): SignedDelivery => ({
    provider: 'gitea',
    body,
    headers: {
      'content-type': 'application/json',
      'x-gogs-event': event,
      'x-gogs-delivery': id,
      'x-gogs-signature': hmacHex(body, SECRETS.gitea),
    },
  }),
  generic: (body: string, id?: string): SignedDelivery => ({
    provider: 'generic',
    body,
    headers: {
      'content-type': 'application/json',
      ...(id === undefined ? {} : { 'x-delivery-id': id }),
      'x-signature-256': `sha256=${hmacHex(body, SECRETS.generic)}`,
    },
  }),
};
