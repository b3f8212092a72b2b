import { createHmac } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDynamoClient } from '../../../infra/local/dynamodb.js';
import { githubPush, gitlabPush } from '../../../infra/local/sample-push.js';
import { LOCAL_GITHUB_SECRET, LOCAL_GITLAB_TOKEN } from '../../../infra/local/stack.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';

const sample = {
  repoUrl: 'https://github.com/example/elsewhere.git',
  fullName: 'example/elsewhere',
  branch: 'main',
  before: 'a'.repeat(40),
  after: 'b'.repeat(40),
  changed: ['README.md'],
  message: 'docs',
};

const sign = (body: string, secret = LOCAL_GITHUB_SECRET) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('the webhook over HTTP through the local stack', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ MAX_BODY_BYTES: '65536' });
  }, 60_000);
  afterAll(async () => stack?.close());

  async function deliveryItems(): Promise<string[]> {
    const dynamo = localDynamoClient(stack.dynamodbEndpoint);
    const items = await dynamo.send(new ScanCommand({ TableName: stack.config.tableName }));
    dynamo.destroy();
    return (items.Items ?? []).map((i) => i.pk?.S ?? '').filter((pk) => pk.startsWith('DELIVERY#'));
  }

  const github = (body: string, headers: Record<string, string>) => ({
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-github-delivery': 'd-x',
      ...headers,
    },
    body,
  });

  it.each([
    { name: 'no signature', headers: {}, status: 401 },
    { name: 'a wrong signature', headers: { 'x-hub-signature-256': sign('{}', 'wrong') }, status: 401 },
    { name: 'only a SHA-1 signature', headers: { 'x-hub-signature': 'sha1=0123' }, status: 401 },
  ])('answers 401 to $name and records nothing', async ({ headers, status }) => {
    const before = await deliveryItems();
    const { body } = githubPush(sample, LOCAL_GITHUB_SECRET, 'd-unsigned');
    const answer = await stack.post('/webhooks/github', github(body, headers));
    expect(answer.status).toBe(status);
    expect(await deliveryItems()).toEqual(before);
    const line = stack.logLines.find((l) => l.fields.security !== undefined);
    expect(line?.fields.security).toBe('high');
    expect(JSON.stringify(stack.logLines)).not.toContain(LOCAL_GITHUB_SECRET);
  });

  it.each([
    { name: 'malformed JSON', body: '{"ref":', headers: {} as Record<string, string> },
    { name: 'a body that is not a push', body: '{"zen":"hi"}', headers: {} },
    { name: 'a missing X-GitHub-Event header', body: '{}', headers: { 'x-github-event': '' } },
  ])('answers 400 to $name', async ({ body, headers }) => {
    const answer = await stack.post(
      '/webhooks/github',
      github(body, { 'x-hub-signature-256': sign(body), ...headers }),
    );
    expect(answer.status).toBe(400);
  });

  it('answers 413 to a body over the limit before reading it all', async () => {
    const body = JSON.stringify({ padding: 'x'.repeat(70_000) });
    const answer = await stack.post('/webhooks/github', github(body, { 'x-hub-signature-256': sign(body) }));
    expect(answer.status).toBe(413);
  });

  it('answers 200 to a ping and 202 ignored to an unknown event and to a branch deletion', async () => {
    const ping = '{"zen":"Keep it logically awesome.","hook_id":1}';
    expect(
      (
        await stack.post(
          '/webhooks/github',
          github(ping, { 'x-github-event': 'ping', 'x-hub-signature-256': sign(ping) }),
        )
      ).status,
    ).toBe(200);
    const issue = '{"action":"opened"}';
    const ignored = await stack.post(
      '/webhooks/github',
      github(issue, { 'x-github-event': 'issues', 'x-hub-signature-256': sign(issue) }),
    );
    expect(ignored).toMatchObject({ status: 202, body: { ignored: expect.any(String) } });
    const deletion = githubPush({ ...sample, after: '0'.repeat(40) }, LOCAL_GITHUB_SECRET, 'd-delete');
    const deleted = await stack.post('/webhooks/github', {
      ...deletion,
      body: deletion.body.replace('"deleted":false', '"deleted":true'),
      headers: {
        ...deletion.headers,
        'x-hub-signature-256': sign(deletion.body.replace('"deleted":false', '"deleted":true')),
      },
    });
    expect(deleted).toMatchObject({ status: 202, body: { ignored: expect.stringContaining('deleted') } });
  });

  it('answers 404 to an unknown provider path and 400 to an unknown provider', async () => {
    expect((await stack.post('/webhooks/bitbucket-cloud', github('{}', {}))).status).toBe(400);
    // A known provider without a configured secret refuses everything, a GitHub-signed body included.
    expect((await stack.post('/webhooks/bitbucket', github('{}', {}))).status).toBe(401);
    expect((await stack.post('/nowhere', github('{}', {}))).status).toBe(404);
  });

  it('records one delivery item each for an accepted GitHub and GitLab push', async () => {
    expect(
      (await stack.post('/webhooks/github', githubPush(sample, LOCAL_GITHUB_SECRET, 'gh-one'))).status,
    ).toBe(202);
    expect(
      (await stack.post('/webhooks/gitlab', gitlabPush(sample, LOCAL_GITLAB_TOKEN, 'gl-one'))).status,
    ).toBe(202);
    const items = await deliveryItems();
    expect(items.filter((pk) => pk === 'DELIVERY#github#gh-one')).toHaveLength(1);
    expect(items.filter((pk) => pk === 'DELIVERY#gitlab#gl-one')).toHaveLength(1);
  });
});
