import { createHmac, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { webhookHandler } from '../lib/handlers.js';
import { ms, type Row, stats } from './measure.js';
import { startBenchWorld } from './world.js';

/** A signed GitHub push of commit `n` (or of a real commit of a real repository, as `of` says). */
export function signedPush(
  n: number,
  of: { repoUrl?: string; before?: string; after?: string; path?: string } = {},
): APIGatewayProxyEventV2 {
  const sha = of.after ?? n.toString(16).padStart(40, 'a');
  const htmlUrl = of.repoUrl ?? 'https://github.com/org/gitops';
  const body = JSON.stringify({
    ref: 'refs/heads/main',
    before: of.before ?? 'b'.repeat(40),
    after: sha,
    created: false,
    deleted: false,
    forced: false,
    commits: [
      {
        id: sha,
        message: `change ${n}`,
        added: [],
        removed: [],
        modified: [of.path ?? `apps/svc-${n % 100}/deployment.yaml`],
        author: { name: 'Bench' },
      },
    ],
    head_commit: {
      id: sha,
      message: `change ${n}`,
      url: `${htmlUrl}/commit/${sha}`,
      author: { name: 'Bench' },
    },
    repository: {
      full_name: 'org/gitops',
      html_url: htmlUrl,
      clone_url: of.repoUrl ?? 'https://github.com/org/gitops.git',
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

/** The webhook function's handler, in process, against dynalite: verify, record, enqueue, answer. */
export async function benchWebhook(): Promise<Row[]> {
  const world = await startBenchWorld();
  try {
    const handler = webhookHandler(async () => world.app);
    for (let i = 0; i < 50; i++) await handler(signedPush(i));
    const samples: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const event = signedPush(1000 + i);
      const start = performance.now();
      const result = await handler(event);
      samples.push(performance.now() - start);
      if (result.statusCode !== 202) throw new Error(`unexpected ${result.statusCode}`);
    }
    const concurrent = performance.now();
    await Promise.all(Array.from({ length: 500 }, (_, i) => handler(signedPush(5000 + i))));
    const perSecond = 500 / ((performance.now() - concurrent) / 1000);
    const s = stats(samples);
    return [
      {
        scenario: 'webhook',
        measure: 'signed push → 202, sequential, p50 / p95 / p99',
        value: `${ms(s.p50)} / ${ms(s.p95)} / ${ms(s.p99)}`,
      },
      {
        scenario: 'webhook',
        measure: '500 concurrent deliveries',
        value: `${perSecond.toFixed(0)} per second`,
      },
    ];
  } finally {
    await world.close();
  }
}
