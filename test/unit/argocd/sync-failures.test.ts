import { describe, expect, it } from 'vitest';
import {
  MAX_FAILURE_MESSAGE,
  MAX_RECORDED_FAILURES,
  syncFailures,
} from '../../../lib/argocd/sync-failures.js';
import { observeApplication } from '../../../lib/argocd/sync-state.js';

const SHA = 'c'.repeat(40);

const DENIED =
  'admission webhook "validate.kyverno.svc-fail" denied the request: \n\nresource Deployment/shop/web was blocked ' +
  'due to the following policies \n\nrequire-run-as-nonroot:\n  run-as-non-root: validation error: Running as root is not allowed.';

/** Shaped like Argo CD's `OperationState` (pkg/apis/application/v1alpha1/types.go) after a failed sync. */
function failedApp(
  resources: unknown[],
  message = 'one or more synchronization tasks completed unsuccessfully',
) {
  return {
    metadata: { name: 'web', namespace: 'argocd' },
    spec: { syncPolicy: { automated: { prune: true, selfHeal: true } } },
    status: {
      sync: { status: 'OutOfSync', revision: SHA },
      health: { status: 'Healthy' },
      operationState: {
        operation: { sync: { revision: SHA }, initiatedBy: { automated: true }, retry: { limit: 2 } },
        phase: 'Failed',
        message,
        startedAt: '2026-11-30T10:00:00Z',
        finishedAt: '2026-11-30T10:00:09Z',
        retryCount: 2,
        syncResult: {
          revision: SHA,
          source: { repoURL: 'https://github.com/org/gitops', path: 'apps/web' },
          resources,
        },
      },
    },
  };
}

const resource = (extra: Record<string, unknown>) => ({
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  namespace: 'shop',
  name: 'web',
  status: 'Synced',
  message: 'deployment.apps/web configured',
  hookPhase: 'Running',
  syncPhase: 'Sync',
  ...extra,
});

describe('observeApplication records the real sync failure', () => {
  it.each([
    {
      name: 'an admission webhook denial on one resource, next to resources that synced',
      resources: [
        resource({ kind: 'Service', group: '', name: 'web', message: 'service/web unchanged' }),
        resource({ status: 'SyncFailed', message: DENIED }),
      ],
      failures: [
        {
          kind: 'Deployment',
          group: 'apps',
          namespace: 'shop',
          name: 'web',
          status: 'SyncFailed',
          message: expect.stringMatching(
            /^admission webhook "validate.kyverno.svc-fail" denied the request: resource/,
          ),
        },
      ],
    },
    {
      name: 'a PreSync hook Job that failed (status Synced, hookPhase Failed)',
      resources: [
        resource({
          group: 'batch',
          kind: 'Job',
          name: 'db-migrate',
          hookType: 'PreSync',
          hookPhase: 'Failed',
          syncPhase: 'PreSync',
          message: 'Job has reached the specified backoff limit',
        }),
      ],
      failures: [
        {
          kind: 'Job',
          group: 'batch',
          namespace: 'shop',
          name: 'db-migrate',
          status: 'Failed',
          message: 'Job has reached the specified backoff limit',
        },
      ],
    },
    {
      name: 'a dry-run failure of a cluster-scoped object',
      resources: [
        {
          group: 'rbac.authorization.k8s.io',
          version: 'v1',
          kind: 'ClusterRole',
          name: 'web-reader',
          status: 'SyncFailed',
          message: 'error validating data: ValidationError(ClusterRole.rules[0]): unknown field "verb"',
          syncPhase: 'Sync',
        },
      ],
      failures: [
        {
          kind: 'ClusterRole',
          group: 'rbac.authorization.k8s.io',
          name: 'web-reader',
          status: 'SyncFailed',
          message: 'error validating data: ValidationError(ClusterRole.rules[0]): unknown field "verb"',
        },
      ],
    },
    { name: 'no resource results at all (nothing more to say)', resources: [], failures: undefined },
  ])('$name', ({ resources, failures }) => {
    const observed = observeApplication(failedApp(resources), SHA);
    expect(observed.state).toBe('failed');
    expect(observed.message).toBe('one or more synchronization tasks completed unsuccessfully');
    expect(observed.failures).toEqual(failures);
  });

  it('caps the failures kept and says how many there were', () => {
    const many = Array.from({ length: 25 }, (_, i) => resource({ name: `web-${i}`, status: 'SyncFailed' }));
    const observed = observeApplication(failedApp(many), SHA);
    expect(observed.failures).toHaveLength(MAX_RECORDED_FAILURES);
    expect(observed.message).toBe(
      `one or more synchronization tasks completed unsuccessfully (25 resources failed, ${MAX_RECORDED_FAILURES} listed)`,
    );
  });

  it('caps a long message and masks credentials in URLs', () => {
    const long = `fetch https://ci:glpat-secret@gitlab.example/org/repo failed: ${'x'.repeat(2000)}`;
    const { failures } = syncFailures(
      failedApp([resource({ status: 'SyncFailed', message: long })]).status.operationState,
    );
    expect(failures[0]?.message).toHaveLength(MAX_FAILURE_MESSAGE);
    expect(failures[0]?.message).toMatch(/^fetch https:\/\/\*\*\*@gitlab\.example\/org\/repo failed: x+…$/);
  });

  it('names the failed attempt while a retry is pending (Running with finishedAt)', () => {
    const retrying = failedApp([resource({ status: 'SyncFailed', message: DENIED })]);
    retrying.status.operationState.phase = 'Running';
    retrying.status.operationState.message =
      'one or more synchronization tasks completed unsuccessfully. Retrying attempt #1 at 10:00:14.';
    const observed = observeApplication(retrying, SHA);
    expect(observed.state).toBe('syncing');
    expect(observed.failures).toBeUndefined();
    expect(observed.message).toMatch(
      /^retrying: one or more .*Retrying attempt #1 at 10:00:14\. \(Deployment shop\/web: admission webhook "validate\.kyverno\.svc-fail" denied/,
    );
  });
});
