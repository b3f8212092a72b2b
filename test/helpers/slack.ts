import type { RolloutSnapshot } from '../../lib/notify/types.js';
import type { AppRecord } from '../../lib/rollouts/app-model.js';
import { deriveRolloutStatus } from '../../lib/rollouts/state-model.js';

export const SHA = '3f2a9c1b7d4e5f60718293a4b5c6d7e8f9012345';

/** One app record; cluster `hub-eu`, namespace `argocd`, kind Application unless overridden. */
export function appRecord(name: string, overrides: Partial<AppRecord> = {}): AppRecord {
  return {
    cluster: 'hub-eu',
    namespace: 'argocd',
    name,
    kind: 'Application',
    state: 'syncing',
    ...overrides,
  };
}

/** A rollout snapshot whose status is derived from its apps, as the records would have it. */
export function rolloutSnapshot(
  apps: readonly AppRecord[],
  overrides: Partial<RolloutSnapshot> = {},
): RolloutSnapshot {
  return {
    sha: SHA,
    repo: { fullName: 'org/gitops', webUrl: 'https://github.com/org/gitops' },
    ref: 'refs/heads/main',
    trigger: 'webhook',
    author: 'Jane Doe',
    commitTitle: 'Bump web to 1.4.2',
    commitUrl: `https://github.com/org/gitops/commit/${SHA}`,
    status: deriveRolloutStatus(apps.map((app) => app.state)),
    apps,
    ...overrides,
  };
}

/** `count` apps named `app-000`… in one state. */
export function manyApps(count: number, overrides: Partial<AppRecord> = {}): AppRecord[] {
  return Array.from({ length: count }, (_, i) => appRecord(`app-${String(i).padStart(3, '0')}`, overrides));
}

/** A sleep that returns at once and remembers what it was asked to wait. */
export function recordingSleep(): {
  readonly sleep: (ms: number) => Promise<void>;
  readonly waits: number[];
} {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms) => {
      waits.push(ms);
    },
  };
}
