import { errorMessage } from '../errors.js';
import { firstOutside, PREFLIGHT_ASSUMABLE_ROLES } from '../fleet/aws-scopes.js';
import {
  type ControllerRole,
  IRSA_ROLE_ANNOTATION,
  type ServiceAccountReader,
} from './controller-identity.js';
import type { StoreIdentity } from './external-secret.js';
import { type AwsTarget, roleChain } from './secrets-manager-api.js';
import type { ResolvedStore } from './store-resolution.js';

export type { StoreIdentity };
export { IRSA_ROLE_ANNOTATION };

export interface IdentityDeps {
  /**
   * A ServiceAccount's annotations on a fleet cluster; `undefined` when it does not exist (404). Throws
   * when it cannot be read. Absent: no cluster is readable.
   */
  readonly serviceAccount?: ServiceAccountReader;
  /** A fleet cluster's `preflightRoleArn`: set, it wins over `controllerRole` (the operator said "use this"). */
  readonly preflightRole?: (cluster: string) => string | undefined;
  /**
   * The role ESO's controller runs as on a fleet cluster (IRSA or Pod Identity, `controller-identity.ts`),
   * for stores without `auth`; `undefined` where the discovery does not apply. Absent: none is looked up.
   */
  readonly controllerRole?: (cluster: string) => Promise<ControllerRole | undefined>;
  /** `PREFLIGHT_ASSUMABLE_ROLES`: the roles the packaged policy lets the preflight assume (absent: any). */
  readonly assumableRoles?: readonly string[];
  /** The work item's deadline (epoch ms): a ServiceAccount read still pending then leaves the store `unchecked`. */
  readonly deadlineMs?: number;
  readonly now?: () => number;
}

export type StoreTarget =
  | {
      readonly ok: true;
      readonly target: AwsTarget;
      /**
       * `identity: …`: the preflight reads with a stand-in for ESO's identity (the controller's role could
       * not be found), so a refusal says nothing about ESO's access.
       */
      readonly note?: string;
    }
  | { readonly ok: false; readonly outcome: 'unchecked' | 'error'; readonly message: string };

/**
 * The identity the preflight reads a store's secrets with, as ESO would: the ServiceAccount's IRSA role
 * (or, for a store without `auth`, the cluster's `preflightRoleArn`, else the ESO controller's IRSA or
 * Pod Identity role), then the store's own roles. Never calls STS: a chain the packaged policy would
 * refuse is `unchecked` here; a refused AssumeRole becomes `unchecked` where the read fails.
 */
export async function storeTarget(store: ResolvedStore, deps: IdentityDeps): Promise<StoreTarget> {
  const label = `${store.kind} "${store.name}"`;
  const source = await sourceRole(store, label, deps);
  if (!source.ok) return source;
  const target: AwsTarget = {
    ...store.target,
    ...(source.role === undefined ? {} : { sourceRole: source.role }),
  };
  const outside =
    deps.assumableRoles === undefined ? undefined : firstOutside(roleChain(target), deps.assumableRoles);
  if (outside !== undefined) {
    return unchecked(
      `role ${outside} is outside ${PREFLIGHT_ASSUMABLE_ROLES}, so the orchestrator may not assume it (widen the setting and redeploy; see docs/preflight-identity.md)`,
    );
  }
  return { ok: true, target, ...(source.note === undefined ? {} : { note: source.note }) };
}

type Source = { ok: true; role?: string; note?: string } | Exclude<StoreTarget, { ok: true }>;

async function sourceRole(store: ResolvedStore, label: string, deps: IdentityDeps): Promise<Source> {
  const { identity, cluster } = store;
  if (identity.type === 'static-keys') {
    return unchecked(
      `${label} authenticates with static keys (auth.secretRef), which the preflight never reads`,
    );
  }
  if (identity.type === 'controller') return controllerSource(cluster, deps);
  const account = `ServiceAccount ${identity.namespace}/${identity.name}`;
  if (cluster === undefined || deps.serviceAccount === undefined) {
    return unchecked(`${label} reads as ${account}, on a destination cluster that is not in the fleet`);
  }
  let annotations: Readonly<Record<string, string>> | undefined;
  try {
    annotations = await withinDeadline(
      deps.serviceAccount(cluster, identity.namespace, identity.name),
      remaining(deps),
    );
  } catch (error) {
    return unchecked(`${account} on cluster ${cluster} could not be read: ${errorMessage(error)}`);
  }
  if (annotations === undefined) {
    return unchecked(
      `${account} not found on cluster ${cluster} (ESO cannot read with ${label} until it exists)`,
    );
  }
  const role = annotations[IRSA_ROLE_ANNOTATION]?.trim();
  if (!role) {
    // ESO's own message; its serviceAccountRef cannot use EKS Pod Identity (docs/provider/aws-access.md).
    return {
      ok: false,
      outcome: 'error',
      message: `an IAM role must be associated with service account ${identity.name} (namespace: ${identity.namespace}): it has no ${IRSA_ROLE_ANNOTATION} annotation`,
    };
  }
  return { ok: true, role };
}

/** A store without `auth`: `preflightRoleArn` if set, else the controller's discovered role, else none (noted). */
async function controllerSource(cluster: string | undefined, deps: IdentityDeps): Promise<Source> {
  if (cluster === undefined) return { ok: true };
  const explicit = deps.preflightRole?.(cluster);
  if (explicit !== undefined) return { ok: true, role: explicit };
  if (deps.controllerRole === undefined) return { ok: true };
  let found: ControllerRole | undefined;
  try {
    found = await withinDeadline(deps.controllerRole(cluster), remaining(deps));
  } catch (error) {
    found = { ok: false, reason: errorMessage(error) };
  }
  if (found === undefined) return { ok: true };
  if (found.ok) return { ok: true, role: found.role };
  return {
    ok: true,
    note: `identity: the orchestrator's own, not ESO's controller's on cluster ${cluster} (${found.reason})`,
  };
}

const remaining = (deps: IdentityDeps) =>
  deps.deadlineMs === undefined ? undefined : deps.deadlineMs - (deps.now ?? Date.now)();

function withinDeadline<T>(work: Promise<T>, remainingMs: number | undefined): Promise<T> {
  if (remainingMs === undefined) return work;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error("the work item's time budget ran out first")),
      Math.max(0, remainingMs),
    );
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

const unchecked = (message: string) => ({ ok: false, outcome: 'unchecked', message }) as const;
