import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDynamoClient } from '../../../infra/local/dynamodb.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import type { SecretCheck } from '../../../lib/secrets/secret-check.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { signedWorldPush } from '../../helpers/world-push.js';

// A value planted in Secrets Manager that must never leave the check (logs, DynamoDB, HTTP, Slack).
const CANARY = 'canary-7d1f0e-never-leaves-the-check';
const OLD_VERSION = '11111111-aaaa-4bbb-8ccc-000000000001';

const externalSecret = (name: string, spec: string) => `apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: ${name}
  namespace: e2e
spec:
  secretStoreRef: { kind: ClusterSecretStore, name: aws-secrets-manager }
  target: { name: ${name} }
${spec}`;

const manifests = [
  externalSecret(
    'missing-secret',
    '  data:\n    - secretKey: v\n      remoteRef: { key: e2e/does-not-exist }\n',
  ),
  externalSecret(
    'missing-property',
    '  data:\n    - secretKey: v\n      remoteRef: { key: e2e/db, property: nope }\n',
  ),
  externalSecret(
    'nested',
    '  data:\n    - secretKey: v\n      remoteRef: { key: e2e/nested, property: outer.inner }\n',
  ),
  externalSecret(
    'literal-dotted',
    '  data:\n    - secretKey: v\n      remoteRef: { key: e2e/db, property: a.b }\n',
  ),
  externalSecret(
    'by-version-id',
    `  data:\n    - secretKey: v\n      remoteRef: { key: e2e/versioned, version: uuid/${OLD_VERSION}, property: old }\n`,
  ),
  externalSecret(
    'binary',
    '  data:\n    - secretKey: v\n      remoteRef: { key: e2e/binary, property: key }\n',
  ),
  externalSecret('find-nothing', '  dataFrom:\n    - find: { name: { regexp: "^nothing-matches-this/" } }\n'),
].join('---\n');

const expected: Record<string, SecretCheck['outcome']> = {
  'e2e/missing-secret': 'missing-secret',
  'e2e/missing-property': 'missing-property',
  'e2e/nested': 'ok',
  'e2e/literal-dotted': 'ok',
  'e2e/by-version-id': 'ok',
  'e2e/binary': 'ok',
  'e2e/find-nothing': 'missing-secret',
};

describe('the ExternalSecret preflight against the Git server, the Secrets Manager double and the simulator', () => {
  let stack: TestStack;
  let sha: string;
  let rollout: Record<string, unknown>;

  beforeAll(async () => {
    stack = await startTestStack();
    const world = stack.world;
    if (world === undefined) throw new Error('no simulated world');
    const sm = world.secretsManager;
    sm.put({
      name: 'e2e/db',
      string: JSON.stringify({ password: CANARY, 'a.b': `${CANARY}-literal`, a: { c: 1 } }),
    });
    sm.put({ name: 'e2e/nested', string: JSON.stringify({ outer: { inner: `${CANARY}-nested` } }) });
    sm.put({ name: 'e2e/binary', binary: Buffer.from(JSON.stringify({ key: `${CANARY}-binary` })) });
    sm.put({
      name: 'e2e/versioned',
      versions: [
        { versionId: OLD_VERSION, stages: ['AWSPREVIOUS'], string: JSON.stringify({ old: `${CANARY}-old` }) },
        {
          versionId: '11111111-aaaa-4bbb-8ccc-000000000002',
          stages: ['AWSCURRENT'],
          string: JSON.stringify({ new: 'x' }),
        },
      ],
    });
    const hub = world.fleet.servers.get('hub');
    const app = (name: string, path: string, annotations: Record<string, string> = {}) => ({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name, namespace: 'argocd', annotations },
      spec: {
        project: 'e2e',
        source: { repoURL: world.repoUrl('platform'), path, targetRevision: 'main' },
        destination: { name: 'spoke-a', namespace: 'e2e' },
        syncPolicy: { automated: { prune: true } },
      },
    });
    hub?.store.create(APPLICATIONS, app('e2e-secrets', 'apps/e2e-secrets'));
    hub?.store.create(
      APPLICATIONS,
      app('e2e-warned', 'apps/e2e-secrets', { 'gitops-sync.dev/secret-policy': 'warn' }),
    );
    hub?.requests.reset();

    const commit = await world.commit(
      'platform',
      { 'apps/e2e-secrets/externalsecrets.yaml': manifests },
      'e2e: secrets',
    );
    sha = commit.after;
    const delivery = signedWorldPush(world, commit, 'e2e: secrets');
    expect((await stack.post('/webhooks/github', delivery)).status).toBe(202);
    rollout = await stack.rolloutWhenDone(sha);
  }, 60_000);
  afterAll(async () => stack?.close());

  const appNamed = (name: string) =>
    (rollout.apps as { name: string; state: string; secrets?: SecretCheck[]; message?: string }[]).find(
      (a) => a.name === name,
    );

  it.each(Object.entries(expected))('records %s as %s', (externalSecret, outcome) => {
    const checks = appNamed('e2e-secrets')?.secrets?.filter((c) => c.externalSecret === externalSecret) ?? [];
    expect(checks.map((c) => c.outcome)).toEqual([outcome]);
  });

  it('blocks the app, names the ExternalSecret, key and property, and never patches it', () => {
    const app = appNamed('e2e-secrets');
    expect(app?.state).toBe('blocked');
    expect(app?.message).toContain('e2e/missing-property key e2e/db property nope');
    const patches = stack.world?.fleet.servers
      .get('hub')
      ?.requests.all()
      .filter((r) => r.verb === 'patch' && r.name === 'e2e-secrets');
    expect(patches).toEqual([]);
  });

  it('refreshes an app whose policy is warn despite the same missing references', () => {
    const app = appNamed('e2e-warned');
    expect(app?.state).toBe('synced');
    expect(app?.secrets?.some((c) => c.outcome === 'missing-property')).toBe(true);
  });

  it('keeps the canary value out of every log line, DynamoDB item, HTTP answer and Slack message', async () => {
    expect(JSON.stringify(stack.logLines)).not.toContain(CANARY);
    const dynamo = localDynamoClient(stack.dynamodbEndpoint);
    const items = await dynamo.send(new ScanCommand({ TableName: stack.config.tableName }));
    dynamo.destroy();
    expect(items.Count ?? 0).toBeGreaterThan(0);
    expect(JSON.stringify(items.Items)).not.toContain(CANARY);
    const answer = await fetch(`${stack.url}/rollouts/${sha}`).then((r) => r.text());
    expect(answer).toContain('e2e/missing-property');
    expect(answer).not.toContain(CANARY);
    const receiver = stack.slack;
    const slack = (receiver?.messages() ?? []).flatMap((m) => [m, ...(receiver?.replies(m.ts) ?? [])]);
    expect(slack.length).toBeGreaterThan(0);
    expect(JSON.stringify(slack)).not.toContain(CANARY);
  });
});
