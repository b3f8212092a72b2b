import { createHmac, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** API Gateway's event for a GitHub push of a real commit, signed with the bench's webhook secret. */
export function signedPushOf(
  repoUrl: string,
  commit: { before: string; after: string; path: string },
): APIGatewayProxyEventV2 {
  const { before, after, path } = commit;
  const body = JSON.stringify({
    ref: 'refs/heads/main',
    before,
    after,
    created: false,
    deleted: false,
    forced: false,
    commits: [
      { id: after, message: 'bench', added: [], removed: [], modified: [path], author: { name: 'Bench' } },
    ],
    head_commit: {
      id: after,
      message: 'bench',
      url: `${repoUrl}/commit/${after}`,
      author: { name: 'Bench' },
    },
    repository: {
      full_name: 'org/gitops',
      html_url: repoUrl,
      clone_url: repoUrl,
      default_branch: 'main',
      url: 'https://api.github.com/repos/org/gitops',
    },
    pusher: { name: 'bench' },
  });
  return {
    version: '2.0',
    routeKey: 'POST /webhooks/{provider}',
    rawPath: '/webhooks/github',
    rawQueryString: '',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${createHmac('sha256', 'bench-secret').update(body).digest('hex')}`,
    },
    pathParameters: { provider: 'github' },
    requestContext: {
      http: { method: 'POST', path: '/webhooks/github' },
    } as APIGatewayProxyEventV2['requestContext'],
    body,
    isBase64Encoded: false,
  };
}
