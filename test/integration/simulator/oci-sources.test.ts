import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOciRegistry } from '../../../infra/simulator/oci-registry.js';
import type { StoredObject } from '../../../infra/simulator/resource-store.js';
import { createMapResolver } from '../../../infra/simulator/revision-resolver.js';
import { type SimulatedFleet, startSimulatedFleet } from '../../../infra/simulator/simulated-fleet.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import { application, waitFor } from '../../helpers/simulator.js';

const HOST = '123456789012.dkr.ecr.eu-west-1.amazonaws.com';
const GIT = 'https://git.example/org/values';
const HEAD = 'e'.repeat(40);
const digest = (c: string) => `sha256:${c.repeat(64)}`;
const REFRESH = 'argocd.argoproj.io/refresh';

interface View {
  status: {
    sync: { status?: string; revision?: string; revisions?: string[] };
    conditions?: { type: string }[];
    operationState?: { phase: string; syncResult?: { revision?: string; revisions?: string[] } };
  };
}

const automated = { syncPolicy: { automated: { prune: true } } };
const apps = [
  application('oci', {
    ...automated,
    source: { repoURL: `oci://${HOST}/charts/web`, targetRevision: '^1.0.0' },
  }),
  application('helm', {
    ...automated,
    source: { repoURL: `${HOST}/charts`, chart: 'web', targetRevision: '1.x' },
  }),
  application('by-digest', {
    ...automated,
    source: { repoURL: `oci://${HOST}/charts/web`, targetRevision: digest('a') },
  }),
  application('multi', {
    ...automated,
    sources: [
      { repoURL: GIT, targetRevision: 'main', ref: 'values' },
      { repoURL: `oci://${HOST}/charts/web`, targetRevision: '1.4.0' },
    ],
  }),
  application('none', {
    ...automated,
    source: { repoURL: `oci://${HOST}/charts/web`, targetRevision: '^7.0.0' },
  }),
  application('git', automated),
];

describe('the simulated Argo CD on OCI and Helm OCI sources', () => {
  const registry = createOciRegistry([
    { repository: `${HOST}/charts/web`, tag: '1.3.0', digest: digest('a') },
    { repository: `${HOST}/charts/web`, tag: '1.4.0', digest: digest('b') },
  ]);
  let fleet: SimulatedFleet;
  const get = (name: string) =>
    fleet.servers.get('hub')?.store.get(APPLICATIONS, 'argocd', name) as unknown as View & StoredObject;
  const refresh = (name: string) =>
    fleet.servers.get('hub')?.store.update(APPLICATIONS, 'argocd', name, (app) => {
      app.metadata.annotations = { ...app.metadata.annotations, [REFRESH]: 'normal' };
    });

  beforeAll(async () => {
    fleet = await startSimulatedFleet({
      clusters: [{ name: 'hub', argocd: { namespace: 'argocd' } }],
      objects: { hub: apps.map((object) => ({ resource: APPLICATIONS, object })) },
      resolveRevision: createMapResolver({
        [GIT]: { defaultBranch: 'main', branches: { main: HEAD } },
        'https://git.example/org/platform': { defaultBranch: 'main', branches: { main: HEAD } },
      }),
      registry,
      controller: { tickMs: 5, syncMs: 20, healthMs: 20 },
    });
  });
  afterAll(async () => {
    await fleet?.close();
  });

  it('starts each app at what its revision resolves to: a digest (OCI), a chart version (Helm OCI)', () => {
    expect(get('oci').status.sync).toMatchObject({ status: 'Synced', revision: digest('b') });
    expect(get('helm').status.sync).toMatchObject({ status: 'Synced', revision: '1.4.0' });
    expect(get('by-digest').status.sync).toMatchObject({ status: 'Synced', revision: digest('a') });
    expect(get('multi').status.sync).toMatchObject({ status: 'Synced', revisions: [HEAD, digest('b')] });
    expect(get('git').status.sync).toMatchObject({ status: 'Synced', revision: HEAD });
  });

  it('reports a revision that resolves to nothing as ComparisonError with sync Unknown', async () => {
    expect(get('none').status.sync.status).toBe('Unknown');
    refresh('none');
    await waitFor(() => get('none').metadata.annotations?.[REFRESH] === undefined);
    expect(get('none').status.sync.status).toBe('Unknown');
    expect(get('none').status.conditions?.map((c) => c.type)).toEqual(['ComparisonError']);
  });

  it('syncs a refreshed app to the new push; an app that is not refreshed stays where it was', async () => {
    const pushed = registry.push({ repository: `${HOST}/charts/web`, tag: '1.5.0' }).digest;
    refresh('oci');
    refresh('helm');
    refresh('by-digest');
    refresh('multi');
    await waitFor(() => get('oci').status.operationState?.syncResult?.revision === pushed);
    await waitFor(() => get('helm').status.operationState?.syncResult?.revision === '1.5.0');
    expect(get('oci').status.sync).toMatchObject({ status: 'Synced', revision: pushed });
    expect(get('helm').status.sync).toMatchObject({ status: 'Synced', revision: '1.5.0' });
    // Pinned by digest and by tag: refreshed, nothing new to sync.
    await waitFor(() => get('multi').metadata.annotations?.[REFRESH] === undefined);
    expect(get('by-digest').status.sync).toMatchObject({ status: 'Synced', revision: digest('a') });
    expect(get('multi').status.sync).toMatchObject({ status: 'Synced', revisions: [HEAD, digest('b')] });
    // The tag 1.4.0 moved to a new manifest: the multi-source app follows it once refreshed.
    const moved = registry.push({ repository: `${HOST}/charts/web`, tag: '1.4.0' }).digest;
    refresh('multi');
    await waitFor(() => get('multi').status.operationState?.syncResult?.revisions?.[1] === moved);
    expect(get('multi').status.sync).toMatchObject({ status: 'Synced', revisions: [HEAD, moved] });
  });
});
