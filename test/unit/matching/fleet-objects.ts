import type { PushToMatch } from '../../../lib/matching/match-index.js';
import type { ChangedFiles } from '../../../lib/webhook/push-event.js';

/** Builders for raw cluster objects, shaped as the Kubernetes API returns them. */
export function application(
  name: string,
  spec: Record<string, unknown>,
  annotations: Record<string, unknown> = {},
  namespace = 'argocd',
): Record<string, unknown> {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace, annotations },
    spec: { project: 'default', destination: { server: 'https://kubernetes.default.svc' }, ...spec },
  };
}

export function gitSource(repoURL: string, path = '.', targetRevision = 'HEAD'): Record<string, unknown> {
  return { repoURL, path, targetRevision };
}

export function applicationSet(
  name: string,
  generators: unknown[],
  namespace = 'argocd',
): Record<string, unknown> {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'ApplicationSet',
    metadata: { name, namespace },
    spec: { generators, template: { metadata: { name: '{{path.basename}}' }, spec: {} } },
  };
}

export function gitRepository(
  name: string,
  url: string,
  ref?: Record<string, unknown>,
  namespace = 'flux-system',
): Record<string, unknown> {
  return {
    apiVersion: 'source.toolkit.fluxcd.io/v1',
    kind: 'GitRepository',
    metadata: { name, namespace },
    spec: { interval: '5m', url, ...(ref === undefined ? {} : { ref }) },
  };
}

export const REPO = 'https://github.com/acme/gitops';

export function branchPush(refName = 'main', over: Partial<PushToMatch> = {}): PushToMatch {
  return {
    repo: { webUrl: REPO, urls: [REPO, `${REPO}.git`, 'git@github.com:acme/gitops.git'] },
    refType: 'branch',
    refName,
    touchedDefaultBranch: refName === 'main',
    ...over,
  };
}

export function tagPush(refName: string, over: Partial<PushToMatch> = {}): PushToMatch {
  return { ...branchPush(refName, over), refType: 'tag', touchedDefaultBranch: false, ...over };
}

export const files = (...list: string[]): ChangedFiles => ({ known: true, files: list });
export const unknownFiles: ChangedFiles = { known: false, reason: 'truncated' };
