import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { localDynamoClient } from '../../../infra/local/dynamodb.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import type { SecretCheck } from '../../../lib/secrets/secret-check.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { commitAndSign } from '../../helpers/world-push.js';

type App = { name: string; state: string; secrets?: SecretCheck[]; message?: string };

const rendered = stringify({
  apiVersion: 'external-secrets.io/v1',
  kind: 'ExternalSecret',
  metadata: { name: 'e2e-helm-db' },
  spec: {
    secretStoreRef: { kind: 'ClusterSecretStore', name: 'aws-secrets-manager' },
    data: [{ secretKey: 'v', remoteRef: { key: 'platform/web/database', property: 'missing' } }],
  },
});

describe('the local stack renders through its simulated Argo CD API, and the token stays inside', () => {
  let stack: TestStack;
  let token: string;
  let blocked: Record<string, unknown>;
  let fallenBack: Record<string, unknown>;

  const push = async (files: Record<string, string>, message: string) => {
    const { commit, delivery } = await commitAndSign(stack, files, message);
    expect((await stack.post('/webhooks/github', delivery)).status).toBe(202);
    return stack.rolloutWhenDone(commit.after);
  };

  beforeAll(async () => {
    stack = await startTestStack();
    const world = stack.world;
    if (world === undefined) throw new Error('no simulated world');
    token = world.fleetConfig.clusters.find((c) => c.name === 'hub')?.argocdToken ?? '';
    world.fleet.servers.get('hub')?.store.create(APPLICATIONS, {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: {
        name: 'e2e-helm',
        namespace: 'argocd',
        annotations: {
          'sim.gitops-sync.dev/helm-output': 'apps/e2e-helm/rendered.yaml',
          'argocd.argoproj.io/manifest-generate-paths': '..',
        },
      },
      spec: {
        project: 'e2e',
        source: { repoURL: world.repoUrl('platform'), path: 'apps/e2e-helm/chart', targetRevision: 'main' },
        destination: { name: 'spoke-a', namespace: 'e2e' },
        syncPolicy: { automated: { prune: true } },
      },
    });
    blocked = await push(
      {
        'apps/e2e-helm/chart/Chart.yaml': stringify({ apiVersion: 'v2', name: 'e2e', version: '1.0.0' }),
        'apps/e2e-helm/chart/templates/es.yaml': 'kind: ExternalSecret\n',
        'apps/e2e-helm/rendered.yaml': rendered,
      },
      'e2e: helm chart',
    );
    // Argo CD's API goes down: the same app falls back to Git and is let through with a warning.
    world.fleet.argocdApis.get('hub')?.faults.set({ status: 503 });
    fallenBack = await push({ 'apps/e2e-helm/chart/values.yaml': 'replicas: 1\n' }, 'e2e: values');
    world.fleet.argocdApis.get('hub')?.faults.clear();
  }, 90_000);
  afterAll(async () => stack?.close());

  const app = (rollout: Record<string, unknown>) =>
    (rollout.apps as App[]).find((a) => a.name === 'e2e-helm');

  it('blocks the Helm app on its rendered ExternalSecret, naming it, its key and property', () => {
    const record = app(blocked);
    expect(record?.state).toBe('blocked');
    expect(record?.message).toContain(
      'ExternalSecret e2e/e2e-helm-db key platform/web/database property missing',
    );
    expect(record?.secrets).toContainEqual(
      expect.objectContaining({ outcome: 'missing-property', renderedBy: 'argocd' }),
    );
  });

  it('lets it through with a warning that names the fallback when Argo CD is down', async () => {
    const record = app(fallenBack);
    expect(record?.state).not.toBe('blocked');
    expect(record?.secrets).toEqual([
      expect.objectContaining({
        outcome: 'not-rendered',
        renderedBy: 'git',
        message: expect.stringMatching(
          /not rendered.*Argo CD did not render this app: Argo CD API answered 503/,
        ),
      }),
    ]);
    const slack = stack.slack?.messages() ?? [];
    const message = slack.find((m) => JSON.stringify(m).includes(String(fallenBack.sha).slice(0, 7)));
    expect(JSON.stringify(message)).toContain('Argo CD did not render this app');
  });

  it('keeps the Argo CD token out of every log line, DynamoDB item, HTTP answer and Slack message', async () => {
    expect(token).toMatch(/^sim-argocd-hub-/);
    expect(JSON.stringify(stack.logLines)).not.toContain(token);
    const dynamo = localDynamoClient(stack.dynamodbEndpoint);
    const items = await dynamo.send(new ScanCommand({ TableName: stack.config.tableName }));
    dynamo.destroy();
    expect(items.Count ?? 0).toBeGreaterThan(0);
    expect(JSON.stringify(items.Items)).not.toContain(token);
    for (const rollout of [blocked, fallenBack]) {
      const answer = await fetch(`${stack.url}/rollouts/${String(rollout.sha)}`).then((r) => r.text());
      expect(answer).toContain('renderedBy');
      expect(answer).not.toContain(token);
    }
    const receiver = stack.slack;
    const slack = (receiver?.messages() ?? []).flatMap((m) => [m, ...(receiver?.replies(m.ts) ?? [])]);
    expect(slack.length).toBeGreaterThan(0);
    expect(JSON.stringify(slack)).not.toContain(token);
  });
});
