import { describe, expect, it } from 'vitest';
import type { StoredApp } from '../../../lib/rollouts/app-model.js';
import { registryAliases, withRolloutRevision } from '../../../lib/rollouts/registry-revisions.js';
import { decideApp } from '../../../lib/rollouts/track-decide.js';

const HEX = 'd1'.repeat(32);
const OLD = `sha256:${'0e'.repeat(32)}`;
const REPO = 'oci://123456789012.dkr.ecr.eu-west-1.amazonaws.com/charts/web';

/** An Application synced and healthy at `revision` (what Argo CD reports for its source). */
const application = (revision: string, phase = 'Succeeded') => ({
  metadata: { name: 'web', namespace: 'argocd' },
  spec: { source: { repoURL: REPO, targetRevision: '^1.0.0' }, syncPolicy: { automated: {} } },
  status: {
    sync: { status: 'Synced', revision },
    health: { status: 'Healthy' },
    operationState: { phase, operation: { sync: { revision } }, syncResult: { revision } },
  },
});

const refreshed: StoredApp = {
  cluster: 'hub',
  namespace: 'argocd',
  name: 'web',
  kind: 'Application',
  state: 'refreshed',
  version: 1,
  fromRevision: OLD,
};

const poll = (live: unknown, aliases: ReadonlySet<string> | undefined) => ({
  sha: HEX,
  pastDeadline: false,
  now: new Date('2026-12-02T12:00:00Z'),
  live: { objects: new Map([['Application/argocd/web', live]]) },
  head: async () => undefined,
  ref: '1.4.0',
  deps: {},
  ...(aliases === undefined ? {} : { aliases }),
});

describe('registryAliases: the revisions Argo CD reports for a registry rollout', () => {
  it('are the digest (OCI) and every tag it arrived under (Helm chart version) for an oci:// rollout', () => {
    expect(registryAliases(REPO, HEX, ['1.4.0', 'stable'])).toEqual(
      new Set([`sha256:${HEX}`, '1.4.0', 'stable']),
    );
  });

  it('are none for a Git rollout', () => {
    expect(
      registryAliases('https://github.com/acme/gitops', 'a'.repeat(40), ['refs/heads/main']),
    ).toBeUndefined();
  });
});

describe('withRolloutRevision', () => {
  it('writes an alias as the rollout key in the sync and operation revisions, leaving the read object alone', () => {
    const live = application(`sha256:${HEX}`);
    const seen = withRolloutRevision(live, HEX, new Set([`sha256:${HEX}`])) as ReturnType<typeof application>;
    expect(seen.status.sync.revision).toBe(HEX);
    expect(seen.status.operationState.syncResult.revision).toBe(HEX);
    expect(seen.status.operationState.operation.sync.revision).toBe(HEX);
    expect(live.status.sync.revision).toBe(`sha256:${HEX}`);
  });

  it('maps each entry of a multi-source app and keeps the others', () => {
    const live = { status: { sync: { status: 'Synced', revisions: ['a'.repeat(40), '1.4.0'] } } };
    const seen = withRolloutRevision(live, HEX, new Set(['1.4.0'])) as typeof live;
    expect(seen.status.sync.revisions).toEqual(['a'.repeat(40), HEX]);
  });
});

describe('the track of a registry rollout', () => {
  it('ends an OCI app synced once Argo CD reports the pushed digest', async () => {
    const change = await decideApp(
      refreshed,
      poll(application(`sha256:${HEX}`), registryAliases(REPO, HEX, ['1.4.0'])),
    );
    expect(change).toMatchObject({ state: 'synced', revision: HEX });
  });

  it('ends a Helm OCI app synced once Argo CD reports the pushed chart version', async () => {
    const change = await decideApp(
      refreshed,
      poll(application('1.4.0'), registryAliases(REPO, HEX, ['1.4.0'])),
    );
    expect(change).toMatchObject({ state: 'synced', revision: HEX });
  });

  it('keeps waiting while the app is still at the digest it had', async () => {
    const change = await decideApp(refreshed, poll(application(OLD), registryAliases(REPO, HEX, ['1.4.0'])));
    expect(change).toMatchObject({ state: 'refreshed', revision: OLD });
  });

  it('would never see the end without the aliases (what the change is for)', async () => {
    const change = await decideApp(refreshed, poll(application(`sha256:${HEX}`), undefined));
    expect(change?.state).not.toBe('synced');
  });
});
