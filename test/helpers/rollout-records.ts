import type { AppRecord } from '../../lib/rollouts/app-model.js';
import type { RolloutMeta } from '../../lib/rollouts/ports/rollout-writer.js';
import type { Rollout } from '../../lib/rollouts/rollout-model.js';
import type { AppState, RolloutStatus } from '../../lib/rollouts/state-model.js';

/** An app record of a rollout, as the store hands it to the notices' planners. */
export const appRecord = (
  cluster: string,
  name: string,
  state: AppState,
  extra: Partial<AppRecord> = {},
): AppRecord => ({ cluster, namespace: 'argocd', name, kind: 'Application', state, ...extra });

/** A webhook rollout of `org/gitops` at one commit, with these apps. */
export const rolloutOf = (
  apps: AppRecord[],
  status: RolloutStatus,
  extra: Partial<Rollout> = {},
): Rollout => ({
  sha: 'a'.repeat(40),
  repo: 'org/gitops',
  repoUrl: 'https://github.com/org/gitops',
  ref: 'refs/heads/main',
  refs: ['refs/heads/main'],
  trigger: 'webhook',
  receivedAt: '2026-12-01T09:00:00.000Z',
  status,
  counts: {},
  decisions: {},
  apps,
  ...extra,
});

/** A webhook push's rollout of `org/gitops` main at `sha`, received now. */
export const webhookMeta = (sha: string): RolloutMeta => ({
  sha,
  repo: 'org/gitops',
  ref: 'refs/heads/main',
  trigger: 'webhook',
  receivedAt: new Date().toISOString(),
});
