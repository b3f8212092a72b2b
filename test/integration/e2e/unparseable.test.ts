import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import type { AppRecord } from '../../../lib/rollouts/app-model.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { commitAndSign } from '../../helpers/world-push.js';

// `replicas: [3` never closes: the YAML parser stops at line 7, column 3 (the next key).
const BROKEN = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: e2e-broken
spec:
  replicas: [3
  selector:
    matchLabels: { app: e2e-broken }
`;
const service = 'apiVersion: v1\nkind: Service\nmetadata:\n  name: e2e-broken\n';

describe('a manifest that does not parse, through the local stack (Git server, simulated Argo CD, DynamoDB, Slack)', () => {
  let stack: TestStack;
  let sha: string;
  let rollout: { apps: AppRecord[] };
  let page: string;

  beforeAll(async () => {
    stack = await startTestStack();
    const world = stack.world;
    if (world === undefined) throw new Error('no simulated world');
    // spoke-c's Argo CD has no API in the fleet: its apps are read from Git. The hub's renders through its API.
    const app = (name: string, path: string, policy?: 'warn' | 'block') => ({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: {
        name,
        namespace: 'argocd',
        annotations: policy === undefined ? {} : { 'gitops-sync.dev/secret-policy': policy },
      },
      spec: {
        project: 'e2e',
        source: { repoURL: world.repoUrl('platform'), path, targetRevision: 'main' },
        destination: { name: 'in-cluster', namespace: 'e2e' },
        syncPolicy: { automated: { prune: true } },
      },
    });
    const spokeC = world.fleet.servers.get('spoke-c');
    spokeC?.store.create(APPLICATIONS, app('broken-warn', 'apps/e2e-broken', 'warn'));
    spokeC?.store.create(APPLICATIONS, app('broken-block', 'apps/e2e-broken'));
    spokeC?.store.create(APPLICATIONS, app('kustomize-block', 'apps/e2e-kbroken', 'block'));
    spokeC?.store.create(APPLICATIONS, app('chart', 'apps/e2e-chart'));
    world.fleet.servers.get('hub')?.store.create(APPLICATIONS, {
      ...app('broken-argocd', 'apps/e2e-broken', 'warn'),
      spec: {
        ...app('broken-argocd', 'apps/e2e-broken').spec,
        destination: { name: 'spoke-a', namespace: 'e2e' },
      },
    });
    spokeC?.requests.reset();

    const message = 'e2e: a manifest that does not parse';
    const { commit, delivery } = await commitAndSign(
      stack,
      {
        'apps/e2e-broken/deploy.yaml': BROKEN,
        'apps/e2e-broken/service.yaml': service,
        'apps/e2e-kbroken/kustomization.yaml': stringify({ resources: ['deploy.yaml', 'service.yaml'] }),
        'apps/e2e-kbroken/deploy.yaml': BROKEN,
        'apps/e2e-kbroken/service.yaml': service,
        'apps/e2e-chart/Chart.yaml': stringify({ apiVersion: 'v2', name: 'e2e', version: '1.0.0' }),
        'apps/e2e-chart/templates/cm.yaml': 'kind: ConfigMap\n',
      },
      message,
    );
    sha = commit.after;
    expect((await stack.post('/webhooks/github', delivery)).status).toBe(202);
    rollout = (await stack.rolloutWhenDone(sha)) as unknown as { apps: AppRecord[] };
    page = await fetch(`${stack.url}/ui/rollouts/${sha}`).then((r) => r.text());
  }, 90_000);
  afterAll(async () => stack?.close());

  const appNamed = (name: string) => rollout.apps.find((a) => a.name === name);
  const patched = (name: string) =>
    (stack.world?.fleet.servers.get('spoke-c')?.requests.all() ?? []).filter(
      (r) => r.verb === 'patch' && r.name === name,
    );

  it('records the file and line of a plain YAML file that does not parse, read from Git', () => {
    const check = appNamed('broken-warn')?.secrets?.find((c) => c.outcome === 'unparseable');
    expect(check).toMatchObject({
      outcome: 'unparseable',
      renderedBy: 'git',
      file: 'apps/e2e-broken/deploy.yaml',
      line: 7,
      column: 3,
    });
    expect(check?.message).toMatch(/^apps\/e2e-broken\/deploy\.yaml:7:3: the manifest does not parse/);
  });

  it('warns under policy warn: the app is refreshed, and the record carries the verdict with the file and line', () => {
    const app = appNamed('broken-warn');
    expect(app?.state).not.toBe('blocked');
    expect(app?.refreshedAt).toBeDefined();
    expect(app?.preflight?.verdict).toBe('warn');
    expect(app?.preflight?.reasons.join()).toContain('apps/e2e-broken/deploy.yaml:7:3');
    expect(patched('broken-warn').length).toBeGreaterThan(0);
  });

  it('blocks under the fleet policy block: state blocked, never patched, the message names file and line', () => {
    const app = appNamed('broken-block');
    expect(app?.state).toBe('blocked');
    expect(app?.message).toBe('apps/e2e-broken/deploy.yaml:7:3: unparseable');
    expect(app?.preflight).toEqual({ verdict: 'block', reasons: [app?.message] });
    expect(patched('broken-block')).toEqual([]);
    expect(page).toContain('manifest apps/e2e-broken/deploy.yaml:7:3: unparseable');
  });

  it('blocks a Kustomize app whose listed resource does not parse', () => {
    const app = appNamed('kustomize-block');
    expect(app?.state).toBe('blocked');
    expect(app?.message).toBe('apps/e2e-kbroken/deploy.yaml:7:3: unparseable');
    expect(patched('kustomize-block')).toEqual([]);
  });

  it("records Argo CD's own answer where the preflight renders through its API", () => {
    const app = appNamed('broken-argocd');
    expect(app?.secrets).toEqual([
      expect.objectContaining({
        outcome: 'unparseable',
        renderedBy: 'argocd',
        file: 'deploy.yaml',
        line: 7,
        message: expect.stringContaining('Failed to unmarshal "deploy.yaml"'),
      }),
    ]);
    expect(app?.preflight?.verdict).toBe('warn');
  });

  it('keeps the verdict warn of a Helm app Argo CD could not render on the record the API serves', () => {
    const app = appNamed('chart');
    expect(app?.state).not.toBe('blocked');
    expect(app?.preflight?.verdict).toBe('warn');
    expect(app?.preflight?.reasons.join()).toMatch(/Helm chart templates are not rendered/);
  });

  it('shows the warned apps on the page and names each once in Slack', () => {
    expect(page).toContain('<section id="warned">');
    for (const name of ['broken-warn', 'broken-argocd', 'chart']) {
      expect(page).toMatch(new RegExp(`data-warned="[^"]*/${name}"`));
    }
    expect(page).not.toMatch(/data-warned="[^"]*\/broken-block"/);
    const receiver = stack.slack;
    const messages = (receiver?.messages() ?? []).filter((m) => JSON.stringify(m).includes(sha.slice(0, 7)));
    const text = JSON.stringify(messages.at(-1));
    expect(text.match(/\*warn\* `spoke-c` argocd\/broken-warn/g)).toHaveLength(1);
    expect(text.match(/\*warn\* `spoke-c` argocd\/chart/g)).toHaveLength(1);
  });
});
