import { describe, expect, it } from 'vitest';
import { pinRevertedByOwner } from '../../../lib/argocd/pin-owner.js';
import { pinOwnersIn } from '../../../lib/argocd/pin-owners.js';

const app = (name: string, metadata: Record<string, unknown> = {}) => ({
  metadata: { name, namespace: 'argocd', ...metadata },
  spec: { source: { repoURL: 'https://github.com/org/gitops', targetRevision: 'main' } },
});
const appSet = (name: string, spec: Record<string, unknown> = {}) => ({
  metadata: { name, namespace: 'argocd' },
  spec,
});

describe('the owners that would write a pin back, found in the cluster listing', () => {
  const listing = [
    { kind: 'ApplicationSet', raw: appSet('previews') },
    {
      kind: 'ApplicationSet',
      raw: appSet('pinned-ok', {
        ignoreApplicationDifferences: [{ jqPathExpressions: ['.spec.source.targetRevision'] }],
      }),
    },
    { kind: 'Application', raw: app('root') },
  ];
  const owners = pinOwnersIn(listing);

  it('finds the ApplicationSet of ownerReferences and the parent that tracks the app', () => {
    const child = app('web-preview', {
      ownerReferences: [{ kind: 'ApplicationSet', name: 'previews' }],
    });
    expect(owners(child).map((o) => `${o.kind}/${o.name}`)).toEqual(['ApplicationSet/previews']);
    const tracked = app('platform-shared-hub', {
      annotations: {
        'argocd.argoproj.io/tracking-id': 'root:argoproj.io/Application:argocd/platform-shared-hub',
      },
    });
    expect(owners(tracked).map((o) => `${o.kind}/${o.name}`)).toEqual(['Application/root']);
    const labelled = app('other', { labels: { 'app.kubernetes.io/instance': 'root' } });
    expect(owners(labelled).map((o) => o.name)).toEqual(['root']);
    // An owner not in the listing, and an app tracking itself, are no owners.
    expect(owners(app('x', { ownerReferences: [{ kind: 'ApplicationSet', name: 'gone' }] }))).toEqual([]);
    expect(owners(app('root', { labels: { 'app.kubernetes.io/instance': 'root' } }))).toEqual([]);
  });

  it('an ApplicationSet without ignoreApplicationDifferences reverts the pin; one with it does not', () => {
    const reverted = app('web-preview', { ownerReferences: [{ kind: 'ApplicationSet', name: 'previews' }] });
    expect(
      pinRevertedByOwner(reverted, owners(reverted), { cluster: 'hub', sourceIndexes: [0] }),
    ).toMatchObject({
      rule: 'pin-reverted-by-owner',
      severity: 'high',
    });
    const kept = app('web-x', { ownerReferences: [{ kind: 'ApplicationSet', name: 'pinned-ok' }] });
    expect(pinRevertedByOwner(kept, owners(kept), { cluster: 'hub', sourceIndexes: [0] })).toBeUndefined();
  });
});
