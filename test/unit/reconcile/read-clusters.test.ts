import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../lib/errors.js';
import type { FleetConfig } from '../../../lib/fleet/fleet-config.js';
import type { ClusterApi, KubeList, ListOptions } from '../../../lib/kubernetes/cluster-api.js';
import type { KubeResource } from '../../../lib/kubernetes/resources.js';
import {
  type ArgoClusterRead,
  readArgoClusters,
  readLiveObjects,
} from '../../../lib/reconcile/read-clusters.js';

type Lists = Record<string, KubeList | Error>;

/** An in-memory `ClusterApi` answering LISTs by plural; what the pass asked is recorded. */
function cluster(name: string, lists: Lists, asked: string[] = []): ClusterApi {
  const unused = () => Promise.reject(new Error('not used'));
  return {
    cluster: name,
    list: async (resource: KubeResource, namespace?: string, options?: ListOptions) => {
      asked.push(`${resource.plural}@${namespace ?? '*'}`);
      const answer = lists[resource.plural];
      if (answer === undefined)
        throw new UpstreamError('not found', { retryable: false, upstreamStatus: 404 });
      if (answer instanceof Error) throw answer;
      // As the cluster client does: the caller's slim runs on each item of the answer.
      const slim = options?.slim;
      return slim === undefined ? answer : { ...answer, items: answer.items.map((item) => slim(item)) };
    },
    get: unused,
    mergePatch: unused,
    mergePatchQuiet: unused,
    jsonPatch: unused,
  };
}

const list = (...names: string[]): KubeList => ({
  items: names.map((name) => ({ metadata: { name, namespace: name.split('/')[0] ?? '' } })),
  resourceVersion: '1',
});

const fleet: FleetConfig = {
  clusters: [
    { name: 'hub', server: 'https://hub', auth: { token: 't' }, argocd: { namespace: 'gitops' } },
    { name: 'down', server: 'https://down', auth: { token: 't' }, argocd: { namespace: 'argocd' } },
    { name: 'spoke', server: 'https://spoke', auth: { token: 't' } },
  ],
  repositories: [],
  secretPolicy: 'block',
  secretStores: [],
};

/** A visit that keeps every page's items, as the test's record of what was listed. */
async function collect(read: ArgoClusterRead) {
  const applications: unknown[] = [];
  for await (const page of read.pages) applications.push(...page.items);
  return { applications, appProjects: read.appProjects, appProjectsError: read.appProjectsError };
}

describe('readArgoClusters', () => {
  it('lists Applications once in each Argo CD namespace, and reports a cluster that fails as unread', async () => {
    const asked: string[] = [];
    const clients = new Map([
      ['hub', cluster('hub', { applications: list('gitops/web', 'gitops/api') }, asked)],
      ['down', cluster('down', { applications: new Error('connect ECONNREFUSED') }, asked)],
      ['spoke', cluster('spoke', {}, asked)],
    ]);
    const read = await readArgoClusters(fleet, clients, { concurrency: 4, readAppProjects: false }, collect);
    expect(asked.sort()).toEqual(['applications@argocd', 'applications@gitops']);
    expect(read.read.map((r) => [r.cluster, r.value.applications.length])).toEqual([['hub', 2]]);
    expect(read.unread).toEqual([{ name: 'down', error: 'connect ECONNREFUSED' }]);
    expect(read.read[0]?.value.applications[0]).toMatchObject({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
    });
  });

  it('reads AppProjects only when asked, and a failure there does not make the cluster unread', async () => {
    const clients = new Map([
      ['hub', cluster('hub', { applications: list('gitops/web'), appprojects: list('gitops/shop') })],
      ['down', cluster('down', { applications: list() })],
    ]);
    const read = await readArgoClusters(fleet, clients, { concurrency: 4, readAppProjects: true }, collect);
    expect([...(read.read[0]?.value.appProjects?.keys() ?? [])]).toEqual(['gitops/shop']);
    expect(read.read[1]).toMatchObject({ cluster: 'down', value: { appProjectsError: 'not found' } });
    expect(read.unread).toEqual([]);
  });
});

describe('readLiveObjects', () => {
  it('lists each live kind once across all namespaces, grouped by namespace', async () => {
    const asked: string[] = [];
    const clients = new Map([
      [
        'spoke',
        cluster(
          'spoke',
          { horizontalpodautoscalers: list('web/a', 'web/b', 'api/c'), scaledobjects: list('web/d') },
          asked,
        ),
      ],
    ]);
    const live = (await readLiveObjects(['spoke'], clients, 4)).get('spoke');
    expect(asked.sort()).toEqual(['horizontalpodautoscalers@*', 'scaledobjects@*']);
    if (live?.ok !== true) throw new Error('not read');
    expect(live.byNamespace.get('web')?.map((o) => (o as { kind: string }).kind)).toEqual([
      'HorizontalPodAutoscaler',
      'HorizontalPodAutoscaler',
      'ScaledObject',
    ]);
  });

  it.each([
    ['a kind the cluster does not serve (no KEDA) holds nothing', {}, true],
    [
      'a refused list makes the live objects unknown',
      { horizontalpodautoscalers: new UpstreamError('forbidden', { retryable: false, upstreamStatus: 403 }) },
      false,
    ],
  ])('%s', async (_name, lists, ok) => {
    const live = (
      await readLiveObjects(['spoke'], new Map([['spoke', cluster('spoke', lists as Lists)]]), 4)
    ).get('spoke');
    expect(live?.ok).toBe(ok);
  });
});
