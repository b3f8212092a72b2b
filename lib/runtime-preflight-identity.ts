import { serviceAccountAnnotations } from './kubernetes/service-accounts.js';
import type { FleetContext } from './runtime-fleet.js';
import type { IdentityDeps } from './secrets/store-identity.js';

/**
 * Whose credentials the preflight (fanout) and its coverage report (reconcile) read each store with: its
 * ServiceAccount's IRSA role, the cluster's `preflightRoleArn`, within `PREFLIGHT_ASSUMABLE_ROLES`.
 */
export function preflightIdentity(
  context: Pick<FleetContext, 'clients' | 'fleetConfig' | 'config'>,
): IdentityDeps {
  const { fleetConfig, config } = context;
  return {
    serviceAccount: serviceAccountAnnotations(context.clients),
    preflightRole: (cluster) => fleetConfig.clusters.find((c) => c.name === cluster)?.preflightRoleArn,
    ...(config.preflightAssumableRoles === undefined
      ? {}
      : { assumableRoles: config.preflightAssumableRoles }),
  };
}
