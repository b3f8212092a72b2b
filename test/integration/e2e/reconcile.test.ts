import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';

describe('the scheduled reconciliation through the local stack', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ MISSED_WEBHOOK_GRACE_SECONDS: '0' });
  }, 60_000);
  afterAll(async () => stack?.close());

  it('catches a commit pushed without a webhook and refreshes it as a schedule rollout', async () => {
    const world = stack.world;
    if (world === undefined) throw new Error('no simulated world');
    const commit = await world.commit(
      'platform',
      { 'shared/config.yaml': 'logLevel: debug\n' },
      'no webhook for this',
    );
    await stack.app.reconcile();
    await stack.app.reconcile();
    const rollout = await stack.rolloutWhenDone(commit.after);
    expect(rollout).toMatchObject({ trigger: 'schedule', missedWebhook: true });
    const apps = rollout.apps as { name: string; state: string }[];
    expect(apps.find((a) => a.name === 'root')?.state).toBe('synced');
  }, 60_000);

  it('refreshes only the apps behind the head, not those Argo CD already synced to it', async () => {
    const world = stack.world;
    if (world === undefined) throw new Error('no simulated world');
    const hub = world.fleet.servers.get('hub');
    if (hub === undefined) throw new Error('no hub');
    const commit = await world.commit(
      'platform',
      { 'shared/config.yaml': 'logLevel: warn\n' },
      'no webhook again',
    );
    // Argo CD's own loop already brought one app to the head.
    hub.store.update(APPLICATIONS, 'argocd', 'root', (app) => {
      const metadata = app.metadata as { annotations?: Record<string, string> };
      metadata.annotations = { ...metadata.annotations, 'argocd.argoproj.io/refresh': 'normal' };
    });
    const synced = () =>
      (hub.store.get(APPLICATIONS, 'argocd', 'root')?.status as { sync?: { revision?: string } })?.sync
        ?.revision;
    for (let i = 0; i < 100 && synced() !== commit.after; i++) await new Promise((r) => setTimeout(r, 50));
    expect(synced()).toBe(commit.after);
    hub.requests.reset();
    await stack.app.reconcile();
    await stack.app.reconcile();
    const rollout = await stack.rolloutWhenDone(commit.after);
    expect(rollout).toMatchObject({ trigger: 'schedule', missedWebhook: true });
    const apps = rollout.apps as { name: string; state: string }[];
    expect(apps.find((a) => a.name === 'root')).toBeUndefined();
    expect(apps.length).toBeGreaterThan(0);
    for (const app of apps) expect(app.state).not.toBe('error');
    expect(hub.requests.appliedPatches('applications').get('root')).toBeUndefined();
  }, 60_000);

  it('serves the audit findings of a pass, filtered by rule and severity', async () => {
    await stack.app.reconcile();
    const all = await stack.get('/findings?limit=500');
    expect(all.status).toBe(200);
    const items = (all.body as { items: { rule: string; severity: string; cluster: string }[] }).items;
    expect(items.some((f) => f.rule === 'floating-image-tag')).toBe(true);
    const critical = await stack.get('/findings?severity=critical');
    for (const f of (critical.body as { items: { severity: string }[] }).items)
      expect(f.severity).toBe('critical');
    const byRule = await stack.get('/findings?rule=floating-image-tag&cluster=hub');
    const ruled = (byRule.body as { items: { rule: string; cluster: string }[] }).items;
    expect(ruled.length).toBeGreaterThan(0);
    for (const f of ruled) expect(f).toMatchObject({ rule: 'floating-image-tag', cluster: 'hub' });
  }, 60_000);
});
