import { errorMessage } from '../errors.js';
import type { EsoController } from '../fleet/fleet-config.js';

/**
 * Whose credentials ESO's controller has, for stores that name no `auth`: its ServiceAccount's IRSA
 * annotation, else (on an `auth.eks` cluster) its EKS Pod Identity association. The AWS SDK's default
 * chain tries web identity (IRSA) before container credentials (Pod Identity), so IRSA wins when both exist.
 */

/** The annotation IRSA reads (and ESO's `auth.jwt.serviceAccountRef`). */
export const IRSA_ROLE_ANNOTATION = 'eks.amazonaws.com/role-arn';

/**
 * A ServiceAccount's annotations on a fleet cluster; `undefined` when it does not exist (404). Throws
 * when it cannot be read.
 */
export type ServiceAccountReader = (
  cluster: string,
  namespace: string,
  name: string,
) => Promise<Readonly<Record<string, string>> | undefined>;

export interface PodIdentityRequest {
  readonly clusterName: string;
  readonly region: string;
  readonly namespace: string;
  readonly serviceAccount: string;
  /** The cluster's `auth.eks.roleArn`: EKS is asked with it, as for the cluster's API. */
  readonly roleArn?: string;
}

export type PodIdentityAnswer =
  | { readonly found: true; readonly roleArn: string; readonly associationId: string }
  | { readonly found: false };

/** Throws an error whose message says why (denied, timed out, no such cluster). */
export type PodIdentityLookup = (request: PodIdentityRequest) => Promise<PodIdentityAnswer>;

export type ControllerRole =
  | { readonly ok: true; readonly role: string }
  | { readonly ok: false; readonly reason: string };

/** What the discovery needs to know of one fleet cluster; `undefined` when it does not apply to it. */
export interface ControllerCluster {
  /** Set in the fleet file, or the default when the cluster is `auth.eks`. */
  readonly eso: EsoController;
  readonly eks?: { readonly clusterName: string; readonly region: string; readonly roleArn?: string };
}

export interface ControllerDeps {
  readonly cluster: (name: string) => ControllerCluster | undefined;
  readonly serviceAccount: ServiceAccountReader;
  readonly podIdentity?: PodIdentityLookup;
  /** How long a failed discovery is remembered before it is tried again (default 60 s). */
  readonly retryAfterMs?: number;
  readonly now?: () => number;
}

/**
 * Per fleet cluster, the role ESO's controller runs as, cached per cold start (a failure for
 * `retryAfterMs`, so a denied or slow EKS is not asked at every push yet recovers); concurrent callers
 * share one lookup. `undefined` for a cluster the discovery does not apply to (no `eso`, not `auth.eks`).
 */
export function controllerRoles(
  deps: ControllerDeps,
): (cluster: string) => Promise<ControllerRole | undefined> {
  const now = deps.now ?? Date.now;
  const retryAfterMs = deps.retryAfterMs ?? 60_000;
  const cache = new Map<string, { answer: Promise<ControllerRole>; until: number }>();
  return (name) => {
    const cluster = deps.cluster(name);
    if (cluster === undefined) return Promise.resolve(undefined);
    const cached = cache.get(name);
    if (cached !== undefined && now() < cached.until) return cached.answer;
    const answer = discover(name, cluster, deps);
    const entry = { answer, until: Number.POSITIVE_INFINITY };
    cache.set(name, entry);
    void answer.then((found) => {
      if (!found.ok) entry.until = now() + retryAfterMs;
    });
    return answer;
  };
}

async function discover(
  name: string,
  cluster: ControllerCluster,
  deps: ControllerDeps,
): Promise<ControllerRole> {
  const { namespace, serviceAccount } = cluster.eso;
  const account = `ServiceAccount ${namespace}/${serviceAccount}`;
  let annotations: Readonly<Record<string, string>> | undefined;
  try {
    annotations = await deps.serviceAccount(name, namespace, serviceAccount);
  } catch (error) {
    return { ok: false, reason: `${account} could not be read: ${errorMessage(error)}` };
  }
  if (annotations === undefined) {
    return {
      ok: false,
      reason: `${account} not found on cluster ${name}; set the cluster's eso.namespace and eso.serviceAccount`,
    };
  }
  const irsa = annotations[IRSA_ROLE_ANNOTATION]?.trim();
  if (irsa) return { ok: true, role: irsa };
  if (cluster.eks === undefined) {
    return {
      ok: false,
      reason: `${account} has no ${IRSA_ROLE_ANNOTATION} annotation, and Pod Identity is looked up only for auth.eks clusters`,
    };
  }
  if (deps.podIdentity === undefined) {
    return { ok: false, reason: `${account} has no ${IRSA_ROLE_ANNOTATION} annotation` };
  }
  let found: PodIdentityAnswer;
  try {
    found = await deps.podIdentity({
      clusterName: cluster.eks.clusterName,
      region: cluster.eks.region,
      namespace,
      serviceAccount,
      ...(cluster.eks.roleArn === undefined ? {} : { roleArn: cluster.eks.roleArn }),
    });
  } catch (error) {
    return { ok: false, reason: errorMessage(error) };
  }
  if (!found.found) {
    return {
      ok: false,
      reason: `${account} has no ${IRSA_ROLE_ANNOTATION} annotation and no EKS Pod Identity association on ${cluster.eks.clusterName}`,
    };
  }
  return { ok: true, role: found.roleArn };
}
