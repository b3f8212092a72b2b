import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '../../../lib/http/request.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { PushMessage } from '../../../lib/queue/messages.js';
import type { RequestedAction } from '../../../lib/webhook/github-check-run.js';
import { type ActionOutcome, handleWebhook, type WebhookDeps } from '../../../lib/webhook/handle-webhook.js';
import { githubExample, memoryDeliveryStore, memoryQueue, signGitHub } from './support.js';

const SECRET = 'gh-secret-5d41402abc4b2a76';

/** GitHub's own `check_run` `requested_action` example, pressed on our "Retry failed" button. */
function checkRunBody(action = 'requested_action', identifier = 'retry'): string {
  const payload = githubExample('check_run', (p) => p.action === 'requested_action');
  payload.action = action;
  payload.requested_action = { identifier };
  return JSON.stringify(payload);
}

function request(
  body: string,
  delivery = 'delivery-cr-1',
  signature = signGitHub(body, SECRET),
): HttpRequest {
  return {
    method: 'POST',
    path: '/webhooks/github',
    query: {},
    pathParameters: { provider: 'github' },
    body: Buffer.from(body),
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'check_run',
      'x-github-delivery': delivery,
      'x-hub-signature-256': signature,
    },
  };
}

function setup(run?: (action: RequestedAction) => Promise<ActionOutcome>) {
  const ran: RequestedAction[] = [];
  const queue = memoryQueue<PushMessage>();
  const deps: WebhookDeps = {
    secrets: async () => ({ github: [SECRET], gitlab: [] }),
    deliveries: memoryDeliveryStore(),
    queue,
    clock: { now: () => new Date('2026-12-02T10:00:00.000Z') },
    logger: createMemoryLogger(),
    ...(run === undefined
      ? {}
      : {
          actions: async (action) => {
            ran.push(action);
            return run(action);
          },
        }),
  };
  return { deps, ran, queue };
}

describe('a check run button pressed on GitHub (check_run requested_action)', () => {
  it('runs the retry once for the commit of the check run, and a redelivery is a duplicate', async () => {
    const { deps, ran, queue } = setup(async () => ({ kind: 'done', detail: '1 app' }));
    const body = checkRunBody();
    const first = await handleWebhook(request(body), 'github', deps);
    expect(first.statusCode).toBe(202);
    expect(JSON.parse(first.body)).toMatchObject({
      rollout: '5bd5f196a46b8222fb7484f05faba41a73cf34bd',
      action: 'retry',
      detail: '1 app',
    });
    expect(ran).toEqual([
      {
        identifier: 'retry',
        sha: '5bd5f196a46b8222fb7484f05faba41a73cf34bd',
        repo: {
          fullName: 'electron/electron',
          urls: expect.arrayContaining(['https://github.com/electron/electron']),
        },
        by: 'github:codebytere',
      },
    ]);
    const again = await handleWebhook(request(body), 'github', deps);
    expect(again.statusCode).toBe(200);
    expect(JSON.parse(again.body)).toEqual({ duplicate: true });
    expect(ran).toHaveLength(1);
    expect(queue.sent).toEqual([]);
  });

  it.each([
    {
      name: 'a check run created',
      action: 'created',
      identifier: 'retry',
      reason: /check_run "created" is not handled/,
    },
    { name: 'a re-run requested', action: 'rerequested', identifier: 'retry', reason: /"rerequested"/ },
    {
      name: 'another button',
      action: 'requested_action',
      identifier: 'lgtm',
      reason: /requested_action "lgtm" is not handled/,
    },
  ])('ignores $name with a 202, running nothing', async ({ action, identifier, reason }) => {
    const { deps, ran } = setup(async () => ({ kind: 'done' }));
    const answer = await handleWebhook(request(checkRunBody(action, identifier)), 'github', deps);
    expect(answer.statusCode).toBe(202);
    expect(JSON.parse(answer.body).ignored).toMatch(reason);
    expect(ran).toEqual([]);
  });

  it('refuses a delivery whose signature is wrong (401) before reading it', async () => {
    const { deps, ran } = setup(async () => ({ kind: 'done' }));
    const body = checkRunBody();
    const answer = await handleWebhook(
      request(body, 'd-2', signGitHub(body, 'another-secret')),
      'github',
      deps,
    );
    expect(answer.statusCode).toBe(401);
    expect(ran).toEqual([]);
  });

  it('says when actions are not enabled, or when the retry had nothing to do', async () => {
    const off = setup();
    const none = await handleWebhook(request(checkRunBody()), 'github', off.deps);
    expect(none.statusCode).toBe(202);
    expect(JSON.parse(none.body)).toEqual({ ignored: 'check run actions are not enabled' });
    const idle = setup(async () => ({ kind: 'ignored', reason: 'nothing to retry' }));
    const answer = await handleWebhook(request(checkRunBody()), 'github', idle.deps);
    expect(answer.statusCode).toBe(202);
    expect(JSON.parse(answer.body)).toEqual({ ignored: 'nothing to retry' });
  });

  it('answers 503 when the retry fails, and the redelivery runs it again', async () => {
    let calls = 0;
    const { deps, ran } = setup(async () => {
      calls += 1;
      if (calls === 1) throw new Error('queue unavailable');
      return { kind: 'done', detail: '2 apps' };
    });
    const body = checkRunBody();
    expect((await handleWebhook(request(body), 'github', deps)).statusCode).toBe(503);
    expect((await handleWebhook(request(body), 'github', deps)).statusCode).toBe(202);
    expect(ran).toHaveLength(2);
  });

  it('refuses a requested action without a commit SHA (400, never a 5xx)', async () => {
    const payload = JSON.parse(checkRunBody()) as { check_run: Record<string, unknown> };
    payload.check_run.head_sha = 'main';
    const { deps, ran } = setup(async () => ({ kind: 'done' }));
    const answer = await handleWebhook(request(JSON.stringify(payload)), 'github', deps);
    expect(answer.statusCode).toBe(400);
    expect(ran).toEqual([]);
  });
});
