import { describe, expect, it } from 'vitest';
import {
  applicationRefreshPatch,
  applicationSetRefreshPatch,
  gitRepositoryRefreshPatch,
} from '../../../lib/argocd/refresh-patch.js';

describe('refresh patches', () => {
  it.each([
    ['no pending refresh', {}, {}, { 'argocd.argoproj.io/refresh': 'normal' }],
    [
      'a pending normal refresh (patched again so a refresh racing the controller is not lost)',
      { refreshAnnotation: 'normal' },
      {},
      { 'argocd.argoproj.io/refresh': 'normal' },
    ],
    [
      'a hydrator dry-source match',
      {},
      { hydrate: true },
      { 'argocd.argoproj.io/refresh': 'normal', 'argocd.argoproj.io/hydrate': 'normal' },
    ],
    [
      'differs from Argo CD: a pending hard refresh with hydrate keeps hard',
      { refreshAnnotation: 'hard' },
      { hydrate: true },
      { 'argocd.argoproj.io/hydrate': 'normal' },
    ],
  ])('patches an Application with %s', (_name, app, options, annotations) => {
    expect(applicationRefreshPatch(app, options)).toEqual({ metadata: { annotations } });
  });

  it('differs from Argo CD: no patch at all when a hard refresh is already pending', () => {
    expect(applicationRefreshPatch({ refreshAnnotation: 'hard' })).toBeUndefined();
  });

  it('asks the ApplicationSet controller to regenerate', () => {
    expect(applicationSetRefreshPatch()).toEqual({
      metadata: { annotations: { 'argocd.argoproj.io/application-set-refresh': 'true' } },
    });
  });

  it('stamps a Flux GitRepository with the injected clock time', () => {
    const clock = { now: () => new Date('2030-01-02T03:04:05.678Z') };
    expect(gitRepositoryRefreshPatch(clock)).toEqual({
      metadata: { annotations: { 'reconcile.fluxcd.io/requestedAt': '2030-01-02T03:04:05.678Z' } },
    });
  });
});
