import type { FindingsReader } from '../api/findings-reader.js';
import {
  ARGOCD_CM,
  POLLING_ON_RULE,
  pollingFinding,
  pollingReason,
  pollingSetting,
  RECONCILIATION_TIMEOUT_KEY,
} from '../argocd/polling.js';
import type { AuditNote, FindingDraft } from '../audit/types.js';
import { mapWithConcurrency } from '../concurrency.js';
import { errorMessage, UpstreamError } from '../errors.js';
import type { FleetConfig } from '../fleet/fleet-config.js';
import type { ClusterApi } from '../kubernetes/cluster-api.js';
import { CONFIG_MAPS } from '../kubernetes/resources.js';
import type { UngatedInstance } from '../rollouts/rollout-model.js';

/** One Argo CD instance's gate as a pass read it. `gated: undefined`: its `argocd-cm` could not be read. */
export interface InstanceGate {
  readonly cluster: string;
  readonly namespace: string;
  readonly gated: boolean | undefined;
  readonly reason?: string;
}

/** An Argo CD instance a rollout lists in `ungated` (SPEC: `{"cluster", "namespace", "reason"}`). */
export type { UngatedInstance };

export interface ArgoGates {
  readonly gates: readonly InstanceGate[];
  readonly findings: readonly FindingDraft[];
  /** A ConfigMap not read (403, 404, a failure): a note that keeps an earlier finding as it was. */
  readonly notes: readonly AuditNote[];
}

/**
 * Reads each Argo CD instance's `argocd-cm` (one GET, RBAC `get` on that one ConfigMap) and raises
 * `argocd-polling-on` unless `timeout.reconciliation` is `0`/`0s`. A ConfigMap that cannot be read is a
 * note, never a failure of the pass.
 */
export async function readArgoGates(
  fleet: Pick<FleetConfig, 'clusters'>,
  clients: ReadonlyMap<string, ClusterApi>,
  concurrency: number,
): Promise<ArgoGates> {
  const argo = fleet.clusters.flatMap((c) =>
    c.argocd === undefined ? [] : [{ cluster: c.name, namespace: c.argocd.namespace }],
  );
  const read = await mapWithConcurrency(argo, concurrency, async ({ cluster, namespace }) => {
    const api = clients.get(cluster);
    if (api === undefined) throw new Error(`no client for cluster ${cluster}`);
    return api.get(CONFIG_MAPS, namespace, ARGOCD_CM);
  });
  const gates: InstanceGate[] = [];
  const findings: FindingDraft[] = [];
  const notes: AuditNote[] = [];
  read.forEach((result, i) => {
    const { cluster, namespace } = argo[i] as (typeof argo)[number];
    if (result.status === 'rejected') {
      const message = `${ARGOCD_CM} not read (${unreadReason(result.reason)}): whether Argo CD polls Git is unknown`;
      gates.push({ cluster, namespace, gated: undefined, reason: message });
      notes.push({ kind: 'skipped', rule: POLLING_ON_RULE, cluster, namespace, app: '', message });
      return;
    }
    const setting = pollingSetting(result.value);
    if (!setting.polling) {
      gates.push({ cluster, namespace, gated: true });
      return;
    }
    gates.push({ cluster, namespace, gated: false, reason: pollingReason(setting.value) });
    findings.push(pollingFinding(cluster, namespace, setting));
  });
  return { gates, findings, notes };
}

function unreadReason(error: unknown): string {
  const status = error instanceof UpstreamError ? error.upstreamStatus : undefined;
  if (status === 403) return '403: the orchestrator may not get it';
  if (status === 404) return '404: no such ConfigMap in that namespace';
  return errorMessage(error).slice(0, 200);
}

/**
 * The Argo CD instances that poll Git, from the open `argocd-polling-on` findings the last pass stored:
 * one keyed query per Argo CD cluster (`<cluster>#argocd-polling-on#…`), cheap enough for each fan-out.
 * An instance whose `argocd-cm` was never read successfully is not listed (nothing says it polls).
 */
export function createUngatedInstances(deps: {
  readonly fleet: Pick<FleetConfig, 'clusters'>;
  readonly findings: FindingsReader;
}): () => Promise<UngatedInstance[]> {
  return async () => {
    const argo = deps.fleet.clusters.filter((c) => c.argocd !== undefined);
    const pages = await Promise.all(
      argo.map((c) => deps.findings.list({ cluster: c.name, rule: POLLING_ON_RULE }, { limit: 10 })),
    );
    return pages.flatMap((page) =>
      page.items.flatMap((item) => {
        const { cluster, namespace, evidence } = item as {
          cluster?: unknown;
          namespace?: unknown;
          evidence?: Record<string, unknown>;
        };
        if (typeof cluster !== 'string' || typeof namespace !== 'string') return [];
        const value = evidence?.[RECONCILIATION_TIMEOUT_KEY];
        return [{ cluster, namespace, reason: pollingReason(typeof value === 'string' ? value : 'unknown') }];
      }),
    );
  };
}
