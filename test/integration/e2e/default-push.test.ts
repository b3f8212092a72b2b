import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDynamoClient } from '../../../infra/local/dynamodb.js';
import { githubPush, gitlabPush } from '../../../infra/local/sample-push.js';
import { LOCAL_GITHUB_SECRET, LOCAL_GITLAB_TOKEN } from '../../../infra/local/stack.js';
import { defaultPushExpectations } from '../../../infra/simulator/default-push.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { commitDefaultChange } from '../../helpers/world-push.js';

interface AppOut {
  cluster: string;
  namespace: string;
  name: string;
  kind: string;
  state: string;
}

describe('a signed push through the local stack against the simulated fleet', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  }, 60_000);
  afterAll(async () => stack?.close());

  // Each push changes the web image again: pushing the same content twice would be an empty commit.
  async function pushDefaultChange() {
    const { commit, sample } = await commitDefaultChange(stack);
    return { ...commit, sample };
  }

  it('refreshes exactly the expected apps across clusters and follows each to its end', async () => {
    const { sample, after } = await pushDefaultChange();
    const response = await stack.post(
      '/webhooks/github',
      githubPush(sample, LOCAL_GITHUB_SECRET, 'gh-delivery-1'),
    );
    expect(response).toMatchObject({ status: 202, body: { delivery: 'gh-delivery-1', rollout: after } });

    const rollout = await stack.rolloutWhenDone(after);
    const apps = rollout.apps as AppOut[];
    const expected = defaultPushExpectations().filter((e) => e.state !== undefined);
    for (const e of expected) {
      const found = apps.find((a) => a.cluster === e.cluster && a.name === e.name && a.kind === e.kind);
      expect({ app: `${e.cluster}/${e.name}`, state: found?.state }).toEqual({
        app: `${e.cluster}/${e.name}`,
        state: e.state,
      });
    }
    const refreshedKinds = apps
      .filter((a) => a.kind !== 'Application')
      .map((a) => `${a.cluster}/${a.kind}/${a.name}`);
    expect(refreshedKinds.sort()).toEqual(['hub/ApplicationSet/previews', 'spoke-c/GitRepository/platform']);
    const names = apps.filter((a) => a.kind === 'Application').map((a) => `${a.cluster}/${a.name}`);
    expect(names.sort()).toEqual(
      expected
        .filter((e) => e.kind === 'Application')
        .map((e) => `${e.cluster}/${e.name}`)
        .sort(),
    );
    expect(rollout.status).toBe('partial');
  }, 40_000);

  it('answers a redelivery as a duplicate and records one delivery item per delivery', async () => {
    const { sample } = await pushDefaultChange();
    const delivery = githubPush(sample, LOCAL_GITHUB_SECRET, 'gh-delivery-dup');
    expect((await stack.post('/webhooks/github', delivery)).status).toBe(202);
    expect(await stack.post('/webhooks/github', delivery)).toMatchObject({
      status: 200,
      body: { duplicate: true },
    });
    const dynamo = localDynamoClient(stack.dynamodbEndpoint);
    const items = await dynamo.send(
      new QueryCommand({
        TableName: stack.config.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: 'DELIVERY#github#gh-delivery-dup' } },
      }),
    );
    dynamo.destroy();
    expect(items.Count).toBe(1);
  }, 40_000);

  it('accepts a GitLab push and records its delivery', async () => {
    const { sample, after } = await pushDefaultChange();
    const response = await stack.post(
      '/webhooks/gitlab',
      gitlabPush({ ...sample, fullName: 'example/platform' }, LOCAL_GITLAB_TOKEN, 'gl-1'),
    );
    expect(response).toMatchObject({ status: 202, body: { rollout: after } });
    const rollout = await stack.rolloutWhenDone(after);
    expect((rollout.apps as AppOut[]).some((a) => a.name === 'web-spoke-a' && a.state === 'synced')).toBe(
      true,
    );
  }, 40_000);

  it('does not patch an app twice when a second delivery of the same commit arrives within a minute', async () => {
    const { sample, after } = await pushDefaultChange();
    const hub = stack.world?.fleet.servers.get('hub');
    hub?.requests.reset();
    expect(
      (await stack.post('/webhooks/github', githubPush(sample, LOCAL_GITHUB_SECRET, 'gh-first'))).status,
    ).toBe(202);
    await stack.rolloutWhenDone(after);
    expect(
      (await stack.post('/webhooks/gitlab', gitlabPush(sample, LOCAL_GITLAB_TOKEN, 'gl-second'))).status,
    ).toBe(202);
    // The push queue holds a message until its fan-out has finished.
    for (let i = 0; i < 200 && stack.queues.push.depth > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(stack.queues.push.depth).toBe(0);
    const patches = hub?.requests.all().filter((r) => r.verb === 'patch' && r.name === 'web-spoke-a') ?? [];
    expect(patches).toHaveLength(1);
  }, 40_000);
});
