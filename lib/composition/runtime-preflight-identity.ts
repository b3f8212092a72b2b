import { createPodIdentityReader } from '../aws/eks-pod-identity.js';
import { DEFAULT_ESO_CONTROLLER } from '../fleet/eso-block.js';
import { createAwsCredentials } from '../kubernetes/aws-credentials.js';
import { serviceAccountAnnotations } from '../kubernetes/service-accounts.js';
import { controllerRoles } from '../secrets/controller-identity.js';
import type { IdentityDeps } from '../secrets/store-identity.js';
import type { FleetContext } from './runtime-fleet.js';

/**
 * Whose credentials the preflight (fanout) and its coverage report (reconcile) read each store with: its
 * ServiceAccount's IRSA role, the cluster's `preflightRoleArn`, else (stores without `auth`) the ESO
 * controller's IRSA or Pod Identity role, within `PREFLIGHT_ASSUMABLE_ROLES`. Built once per cold start:
 * the controller's role is looked up once per cluster.
 */
export function preflightIdentity(
  context: Pick<FleetContext, 'clients' | 'fleetConfig' | 'config'>,
): IdentityDeps {
  const { fleetConfig, config } = context;
  const serviceAccount = serviceAccountAnnotations(context.clients);
  const http = {
    requestTimeoutMs: config.awsRequestTimeoutMs,
    connectionTimeoutMs: config.awsConnectTimeoutMs,
  };
  const podIdentity = createPodIdentityReader({
    credentials: createAwsCredentials({
      ...(config.stsEndpoint === undefined ? {} : { stsEndpoint: config.stsEndpoint }),
      http,
    }),
    ...(config.eksEndpoint === undefined ? {} : { endpoint: config.eksEndpoint }),
    http,
  });
  const controllerRole = controllerRoles({
    serviceAccount,
    podIdentity,
    // Clusters that say where ESO runs, and EKS clusters (where IRSA and Pod Identity live) at its default.
    cluster: (name) => {
      const cluster = fleetConfig.clusters.find((c) => c.name === name);
      if (cluster === undefined) return undefined;
      const eks = 'eks' in cluster.auth ? cluster.auth.eks : undefined;
      if (cluster.eso === undefined && eks === undefined) return undefined;
      return { eso: cluster.eso ?? DEFAULT_ESO_CONTROLLER, ...(eks === undefined ? {} : { eks }) };
    },
  });
  return {
    serviceAccount,
    preflightRole: (cluster) => fleetConfig.clusters.find((c) => c.name === cluster)?.preflightRoleArn,
    controllerRole,
    ...(config.preflightAssumableRoles === undefined
      ? {}
      : { assumableRoles: config.preflightAssumableRoles }),
  };
}
