import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlackReceiver, startSlackReceiver } from '../../../infra/local/slack-receiver.js';
import type { Finding } from '../../../lib/audit/types.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { createSlackTarget, postToSlack } from '../../../lib/notify/slack-target.js';
import type { ReconcileReport } from '../../../lib/reconcile/report.js';
import { type ReconcileWorld, startReconcileWorld } from './harness.js';

const MINUTE = 60_000;
const FINALIZER = 'resources-finalizer.argocd.argoproj.io';
const DEPLOY =
  'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web }\nspec:\n  template:\n    spec:\n      containers: [{ name: web, image: "ghcr.io/org/web:1.0.0" }]\n';

const app = (name: string, url: string, finalizers: string[]) => ({
  resource: APPLICATIONS,
  object: {
    metadata: { name, namespace: 'argocd', finalizers },
    spec: {
      project: 'shop',
      source: { repoURL: url, path: 'apps/web', targetRevision: 'main' },
      destination: { name: 'spoke', namespace: 'web' },
      syncPolicy: { automated: { prune: true, selfHeal: true, allowEmpty: false } },
    },
  },
});

describe('findings across passes: stored once, seen, held, resolved, reopened, and told to Slack once', () => {
  let world: ReconcileWorld;
  let slack: SlackReceiver;
  let t0: string;

  const pass = async (): Promise<ReconcileReport> => {
    const target = createSlackTarget(
      { mode: 'webhook', webhookUrl: slack.webhookUrl('/digest') },
      { logger: createMemoryLogger(), retry: { maxAttempts: 1 } },
    );
    return world.pass({}, { digest: (message) => postToSlack(target, message) });
  };
  const stored = async (app: string): Promise<Finding[]> =>
    (await world.findings.loadAll()).filter((f) => f.app === app);
  const setFinalizers = (cluster: string, name: string, finalizers: string[]) =>
    world.sim.servers.get(cluster)?.store.update(APPLICATIONS, 'argocd', name, (draft) => {
      draft.metadata.finalizers = finalizers;
    });

  beforeAll(async () => {
    slack = await startSlackReceiver();
    world = await startReconcileWorld({
      repos: { gitops: { files: { 'apps/web/deploy.yaml': DEPLOY } } },
      clusters: [
        { name: 'hub-a', argocd: { namespace: 'argocd' } },
        { name: 'hub-b', argocd: { namespace: 'argocd' } },
        { name: 'spoke' },
      ],
      objects: (urls) => ({
        'hub-a': [app('orphan-a', urls.gitops ?? '', []), app('good-a', urls.gitops ?? '', [FINALIZER])],
        'hub-b': [app('orphan-b', urls.gitops ?? '', [])],
      }),
    });
    t0 = world.clock.now().toISOString();
  });
  afterAll(async () => {
    await world?.close();
    await slack?.close();
  });

  it('creates each finding once and posts one digest of the new ones', async () => {
    const report = await pass();
    expect(report.findings).toEqual({ created: 2, resolved: 0, open: 2, written: 2 });
    expect(report.digest).toBe('sent');
    expect(await stored('orphan-a')).toEqual([
      expect.objectContaining({ rule: 'missing-finalizer', cluster: 'hub-a', firstSeen: t0, lastSeen: t0 }),
    ]);
    const messages = slack.messages();
    expect(messages).toHaveLength(1);
    expect(messages[0]?.text).toContain('2 new');
    expect(JSON.stringify(messages[0]?.blocks)).toContain('hub-a/argocd/orphan-a');
  });

  it('reads each kind once per cluster per pass: Applications on Argo CD clusters, autoscalers on the destination', async () => {
    for (const server of world.sim.servers.values()) server.requests.reset();
    await pass();
    const count = (cluster: string, resource: string) =>
      world.sim.servers.get(cluster)?.requests.count({ verb: 'list', resource }) ?? -1;
    for (const hub of ['hub-a', 'hub-b']) {
      expect(count(hub, 'applications')).toBe(1);
      // and one GET of argocd-cm: the polling gate.
      expect(world.sim.servers.get(hub)?.requests.count({ verb: 'get', resource: 'configmaps' })).toBe(1);
      expect(world.sim.servers.get(hub)?.requests.all()).toHaveLength(2);
    }
    expect(count('spoke', 'horizontalpodautoscalers')).toBe(1);
    expect(count('spoke', 'scaledobjects')).toBe(1);
    expect(world.sim.servers.get('spoke')?.requests.all()).toHaveLength(2);
  });

  it('keeps a finding seen again as one item and rewrites its lastSeen at most hourly', async () => {
    world.clock.advance(5 * MINUTE);
    const soon = await pass();
    expect(soon.findings).toEqual({ created: 0, resolved: 0, open: 2, written: 0 });
    expect(await stored('orphan-a')).toEqual([expect.objectContaining({ firstSeen: t0, lastSeen: t0 })]);

    world.clock.advance(60 * MINUTE);
    const later = await pass();
    expect(later.findings).toEqual({ created: 0, resolved: 0, open: 2, written: 2 });
    const now = world.clock.now().toISOString();
    expect(await stored('orphan-a')).toEqual([expect.objectContaining({ firstSeen: t0, lastSeen: now })]);
    expect(slack.messages()).toHaveLength(1);
  });

  it('lists a cluster that answers 500 as unread and keeps its findings open', async () => {
    const hubB = world.sim.servers.get('hub-b');
    hubB?.faults.set({ status: 500, only: { verb: 'list', resource: 'applications' } });
    setFinalizers('hub-b', 'orphan-b', [FINALIZER]);
    try {
      world.clock.advance(5 * MINUTE);
      const report = await pass();
      expect(report.clusters.read).toEqual(['hub-a']);
      expect(report.clusters.unread).toEqual([{ name: 'hub-b', error: expect.stringContaining('500') }]);
      expect(report.findings).toMatchObject({ resolved: 0, open: 2 });
      expect(await stored('orphan-b')).toEqual([
        expect.not.objectContaining({ resolvedAt: expect.anything() }),
      ]);
      expect(slack.messages()).toHaveLength(1);
    } finally {
      hubB?.faults.clear();
      setFinalizers('hub-b', 'orphan-b', []);
    }
  });

  it('resolves a finding once the app is fixed and posts a digest of that alone', async () => {
    setFinalizers('hub-a', 'orphan-a', [FINALIZER]);
    world.clock.advance(5 * MINUTE);
    const report = await pass();
    expect(report.findings).toMatchObject({ created: 0, resolved: 1, open: 1 });
    const [finding] = await stored('orphan-a');
    expect(finding?.resolvedAt).toBe(world.clock.now().toISOString());
    expect((await world.findings.loadOpen()).map((f) => f.app)).toEqual(['orphan-b']);
    const digest = slack.messages()[1];
    expect(slack.messages()).toHaveLength(2);
    expect(digest?.text).toBe('Audit: 1 resolved');
    expect(JSON.stringify(digest?.blocks)).toContain('orphan-a');
    expect(JSON.stringify(digest?.blocks)).not.toContain('orphan-b');
  });

  it('sends nothing to Slack when nothing changed', async () => {
    world.clock.advance(5 * MINUTE);
    const report = await pass();
    expect(report.digest).toBe('nothing-changed');
    expect(slack.messages()).toHaveLength(2);
  });

  it('reopens a finding that comes back, keeping when it was first seen', async () => {
    setFinalizers('hub-a', 'orphan-a', []);
    world.clock.advance(5 * MINUTE);
    const report = await pass();
    expect(report.findings).toMatchObject({ created: 1, resolved: 0, open: 2 });
    expect(await stored('orphan-a')).toEqual([
      expect.objectContaining({ firstSeen: t0, lastSeen: world.clock.now().toISOString() }),
    ]);
    expect((await stored('orphan-a'))[0]?.resolvedAt).toBeUndefined();
    expect(slack.messages()).toHaveLength(3);
    expect(JSON.stringify(slack.messages()[2]?.blocks)).toContain('(reopened)');
  });

  it('serves the findings through the reader the API uses, open by default', async () => {
    const open = await world.findings.list({ cluster: 'hub-a' }, { limit: 10 });
    expect(open.items).toEqual([
      expect.objectContaining({
        cluster: 'hub-a',
        app: 'orphan-a',
        rule: 'missing-finalizer',
        status: 'open',
      }),
    ]);
  });
});
