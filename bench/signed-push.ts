import { createHmac, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** The push a signed event carries: the commit, its changed file, its message and its repository's URLs. */
interface Pushed {
  readonly before: string;
  readonly after: string;
  readonly path: string;
  readonly message: string;
  readonly htmlUrl: string;
  readonly cloneUrl: string;
}

/** API Gateway's event for a GitHub push, signed with the bench's webhook secret. */
function signedPushEvent(pushed: Pushed): APIGatewayProxyEventV2 {
  const { before, after, path, message, htmlUrl, cloneUrl } = pushed;
  const body = JSON.stringify({
    ref: 'refs/heads/main',
    before,
    after,
    created: false,
    deleted: false,
    forced: false,
    commits: [{ id: after, message, added: [], removed: [], modified: [path], author: { name: 'Bench' } }],
    head_commit: {
      id: after,
      message,
      url: `${htmlUrl}/commit/${after}`,
      author: { name: 'Bench' },
    },
    repository: {
      full_name: 'org/gitops',
      html_url: htmlUrl,
      clone_url: cloneUrl,
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

/** A signed GitHub push of commit `n` (or of a real commit of a real repository, as `of` says). */
export function signedPush(
  n: number,
  of: { repoUrl?: string; before?: string; after?: string; path?: string } = {},
): APIGatewayProxyEventV2 {
  return signedPushEvent({
    before: of.before ?? 'b'.repeat(40),
    after: of.after ?? n.toString(16).padStart(40, 'a'),
    path: of.path ?? `apps/svc-${n % 100}/deployment.yaml`,
    message: `change ${n}`,
    htmlUrl: of.repoUrl ?? 'https://github.com/org/gitops',
    cloneUrl: of.repoUrl ?? 'https://github.com/org/gitops.git',
  });
}

/** API Gateway's event for a GitHub push of a real commit of the repository at `repoUrl`. */
export function signedPushOf(
  repoUrl: string,
  commit: { before: string; after: string; path: string },
): APIGatewayProxyEventV2 {
  return signedPushEvent({ ...commit, message: 'bench', htmlUrl: repoUrl, cloneUrl: repoUrl });
}
