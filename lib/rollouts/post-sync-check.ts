import { parseApplication } from '../argocd/application.js';
import { errorMessage } from '../errors.js';
import { destinationCluster } from '../fleet/destination.js';
import type { ClusterConfig } from '../fleet/fleet-config.js';
import type { Logger } from '../ports.js';
import { recordPostSync } from '../secrets/post-sync.js';
import type { StoredApp } from './app-model.js';
import type { AppChange } from './ports/app-state.js';

export interface PostSyncDeps {
  readonly clusters: readonly Pick<ClusterConfig, 'name' | 'server'>[];
  /** ExternalSecrets in one namespace of a fleet cluster. */
  readonly externalSecrets: (cluster: string, namespace: string) => Promise<readonly unknown[]>;
  readonly logger: Logger;
}

/**
 * When an app whose preflight checked ExternalSecrets ends, read those ExternalSecrets' `Ready` condition on
 * its destination cluster (when the fleet has it) and record `SecretSynced` / `SecretSyncedError`.
 */
export function postSyncCheck(deps: PostSyncDeps) {
  return async (_sha: string, app: StoredApp, live: unknown): Promise<AppChange> => {
    const checked = (app.secrets ?? []).filter((c) => c.externalSecret.includes('/'));
    if (app.kind !== 'Application' || checked.length === 0 || app.state === 'blocked') return {};
    const parsed = parseApplication(live);
    if (!parsed.ok) return {};
    const destination = destinationCluster(parsed.value.destination, app.cluster, deps.clusters);
    if (destination === undefined) return {};
    const namespaces = [...new Set(checked.map((c) => c.externalSecret.split('/')[0] ?? ''))].filter(
      (n) => n !== '',
    );
    try {
      const liveSecrets = (
        await Promise.all(namespaces.map((ns) => deps.externalSecrets(destination, ns)))
      ).flat();
      return { secrets: recordPostSync({ live: liveSecrets, preflight: app.secrets ?? [] }) };
    } catch (error) {
      deps.logger.warn('post-sync ExternalSecret check skipped', {
        cluster: destination,
        app: app.name,
        error: errorMessage(error),
      });
      return {};
    }
  };
}
