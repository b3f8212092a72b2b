import type { FindingDraft } from '../audit/types.js';

/** The ConfigMap Argo CD reads its settings from, in its own namespace. */
export const ARGOCD_CM = 'argocd-cm';
export const RECONCILIATION_TIMEOUT_KEY = 'timeout.reconciliation';
/** What Argo CD polls at when `argocd-cm` does not set `timeout.reconciliation` (SPEC). */
export const DEFAULT_RECONCILIATION_TIMEOUT = '180s';
export const POLLING_ON_RULE = 'argocd-polling-on';

/** The longest `timeout.reconciliation` kept in evidence (it comes from the cluster). */
const MAX_VALUE_CHARS = 64;

/** Whether one Argo CD polls Git itself, and the value that says so (`180s (default)` when unset). */
export interface PollingSetting {
  readonly polling: boolean;
  readonly value: string;
}

/** `0`, `0s` (and `0m`, `0ms`, `0h`): Argo CD's polling is off. Anything else polls or falls back to the default. */
export function isPollingOff(value: string): boolean {
  return /^0+(ms|s|m|h)?$/.test(value.trim());
}

/** The polling setting an `argocd-cm` object holds (any shape: a missing key is the default). */
export function pollingSetting(configMap: unknown): PollingSetting {
  const data = (configMap as { data?: unknown } | null | undefined)?.data;
  const value =
    typeof data === 'object' && data !== null
      ? (data as Record<string, unknown>)[RECONCILIATION_TIMEOUT_KEY]
      : undefined;
  if (typeof value !== 'string')
    return { polling: true, value: `${DEFAULT_RECONCILIATION_TIMEOUT} (default)` };
  const shown = value.length > MAX_VALUE_CHARS ? `${value.slice(0, MAX_VALUE_CHARS)}…` : value;
  return { polling: !isPollingOff(value), value: shown };
}

/** Why an instance that polls does not hold a commit: the text `ungated` and the finding carry. */
export function pollingReason(value: string): string {
  return `argocd-cm ${RECONCILIATION_TIMEOUT_KEY} is ${value}: Argo CD polls Git itself and moves apps that track a branch to its tip`;
}

/** The `argocd-polling-on` finding of one Argo CD instance (no app: the instance's `argocd-cm`). */
export function pollingFinding(cluster: string, namespace: string, setting: PollingSetting): FindingDraft {
  return {
    rule: POLLING_ON_RULE,
    severity: 'high',
    cluster,
    namespace,
    app: '',
    subject: `ConfigMap/${namespace}/${ARGOCD_CM}`,
    message:
      `${pollingReason(setting.value)}, so a held, blocked or frozen app can still move. ` +
      `Fix: set \`control: pin\` on the repositories it deploys (the orchestrator then owns each source's targetRevision), ` +
      `or, for advisory holds, turn polling off (${RECONCILIATION_TIMEOUT_KEY}: 0s, then restart the application controller and repo-server)`,
    evidence: { [RECONCILIATION_TIMEOUT_KEY]: setting.value },
  };
}
