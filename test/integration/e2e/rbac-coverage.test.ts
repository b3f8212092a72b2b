import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { githubPush } from '../../../infra/local/sample-push.js';
import { LOCAL_GITHUB_SECRET } from '../../../infra/local/stack.js';
import { defaultPush } from '../../../infra/simulator/default-push.js';
import { KUBE_RESOURCES, resourceName } from '../../../lib/kubernetes/resources.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { worldSample } from '../../helpers/world-push.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}
interface RbacObject {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: Rule[];
  roleRef?: { kind: string; name: string };
}

/** `scope resource.group verb` for every permission infra/rbac grants (scope: `cluster` or a namespace). */
function granted(): Set<string> {
  const dir = join(import.meta.dirname, '../../../infra/rbac');
  const objects = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS() as RbacObject));
  const out = new Set<string>();
  for (const binding of objects.filter((o) => o.kind.endsWith('RoleBinding'))) {
    const role = objects.find(
      (o) => o.kind === binding.roleRef?.kind && o.metadata.name === binding.roleRef?.name,
    );
    const scope = binding.kind === 'ClusterRoleBinding' ? 'cluster' : (binding.metadata.namespace ?? '');
    for (const rule of role?.rules ?? [])
      for (const group of rule.apiGroups)
        for (const resource of rule.resources)
          for (const verb of rule.verbs)
            out.add(`${scope} ${resourceName({ group, plural: resource })} ${verb}`);
  }
  return out;
}

/**
 * The permissions the orchestrator's own calls need, read from every simulated cluster's request log
 * after a push (fan-out, preflight, refresh, track, post-sync check) and two reconcile passes (missed
 * webhooks, audit): a namespaced call needs its namespace or cluster scope; a cluster-wide one, cluster.
 */
function used(stack: TestStack): { needs: Map<string, string[]>; calls: string[] } {
  const world = stack.world;
  if (world === undefined) throw new Error('no simulated world');
  const needs = new Map<string, string[]>();
  const calls: string[] = [];
  for (const server of world.fleet.servers.values()) {
    for (const r of server.requests.all()) {
      if (r.resource === 'discovery') continue;
      const resource = KUBE_RESOURCES.find((k) => k.plural === r.resource);
      const name = resource === undefined ? r.resource : resourceName(resource);
      const call = `${name} ${r.verb}`;
      calls.push(call);
      const scopes = r.namespace === undefined ? ['cluster'] : ['cluster', r.namespace];
      needs.set(`${call}${r.namespace === undefined ? '' : ` in ${r.namespace}`}`, scopes);
    }
  }
  return { needs, calls };
}

describe('infra/rbac grants exactly what the orchestrator calls', () => {
  let stack: TestStack;
  let sha = '';
  beforeAll(async () => {
    stack = await startTestStack({ MISSED_WEBHOOK_GRACE_SECONDS: '0' });
    const world = stack.world;
    if (world === undefined) throw new Error('no simulated world');
    const push = defaultPush();
    const commit = await world.commit(push.repository, push.changes, push.message, push.branch);
    const sample = worldSample(world, commit, push.message, { branch: push.branch });
    await stack.post('/webhooks/github', githubPush(sample, LOCAL_GITHUB_SECRET, 'rbac-delivery'));
    sha = commit.after;
    await stack.rolloutWhenDone(commit.after);
    await world.commit('platform', { 'shared/config.yaml': 'logLevel: warn\n' }, 'no webhook');
    await stack.app.reconcile();
    await stack.app.reconcile();
  }, 90_000);
  afterAll(async () => stack?.close());

  it('misses nothing the code calls', () => {
    const grants = granted();
    const { needs } = used(stack);
    expect(needs.size).toBeGreaterThan(0);
    const missing = [...needs]
      .filter(([need, scopes]) => {
        const [resource, verb] = need.split(' ');
        return !scopes.some((scope) => grants.has(`${scope} ${resource} ${verb}`));
      })
      .map(([need]) => need);
    expect(missing).toEqual([]);
  });

  // The same run, seen by on-call: the API carries the per-resource failure Argo CD reported.
  it('serves the failed app with the failed resource and its message', async () => {
    const { body } = await stack.get(`/rollouts/${sha}`);
    const apps = (body as { apps: { name: string; state: string; failures?: unknown }[] }).apps;
    expect(apps.find((a) => a.name === 'web-e2e')).toMatchObject({
      state: 'failed',
      failures: [
        {
          kind: 'Deployment',
          group: 'apps',
          status: 'SyncFailed',
          message: expect.stringContaining('admission webhook denied the request'),
        },
      ],
    });
  });

  it('grants nothing the code never calls', () => {
    const { calls } = used(stack);
    const called = new Set(calls);
    const extra = [...granted()].filter((g) => !called.has(g.split(' ').slice(1).join(' ')));
    expect(extra).toEqual([]);
  });
});
