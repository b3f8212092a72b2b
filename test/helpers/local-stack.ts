import { type LocalStack, type LocalStackOptions, startLocalStack } from '../../infra/local/stack.js';
import type { LocalQueues } from '../../infra/local/stack-queues.js';
import { createMemoryLogger, type LogLine } from '../../lib/logger.js';

export interface TestStack extends Omit<LocalStack, 'queues'> {
  /** The in-process queues (throws when the stack runs against an SQS endpoint). */
  readonly queues: LocalQueues;
  readonly logLines: LogLine[];
  post(
    path: string,
    delivery: { headers: Record<string, string>; body: string },
  ): Promise<{ status: number; body: unknown }>;
  get(path: string): Promise<{ status: number; body: unknown }>;
  /** Polls `GET /rollouts/{sha}` until its status is final (or the timeout passes). */
  rolloutWhenDone(sha: string, timeoutMs?: number): Promise<Record<string, unknown>>;
}

/** The local stack with the default simulated world, tuned to finish rollouts in about a second. */
export async function startTestStack(
  env: Record<string, string> = {},
  options: Pick<LocalStackOptions, 'clusterTimeoutMs' | 'fleetOverlay' | 'controller' | 'wrapQueue'> = {},
): Promise<TestStack> {
  const logLines: LogLine[] = [];
  const stack = await startLocalStack({
    env: {
      PORT: '0',
      TRACK_INTERVAL_SECONDS: '1',
      TRACK_MAX_INTERVAL_SECONDS: '1',
      TRACK_DEADLINE_SECONDS: '60',
      TRACK_CHAIN_LEASE_SECONDS: '4',
      ...env,
    },
    controller: { tickMs: 20, syncMs: 60, healthMs: 60, retryMs: 60 },
    logger: createMemoryLogger(logLines),
    schedule: false,
    ...options,
  });
  const request = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${stack.url}${path}`, init);
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body };
  };
  const { queues, ...rest } = stack;
  return {
    ...rest,
    get queues(): LocalQueues {
      if (queues === undefined) throw new Error('this stack runs against SQS_ENDPOINT: no in-process queues');
      return queues;
    },
    logLines,
    post: (path, delivery) =>
      request(path, { method: 'POST', headers: delivery.headers, body: delivery.body }),
    get: (path) => request(path),
    async rolloutWhenDone(sha, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      let last: unknown;
      while (Date.now() < deadline) {
        const { status, body } = await request(`/rollouts/${sha}`);
        last = body;
        const state = (body as { status?: string }).status;
        if (status === 200 && state !== 'pending' && state !== 'in-progress')
          return body as Record<string, unknown>;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`rollout ${sha} did not finish: ${JSON.stringify(last)}`);
    },
  };
}
