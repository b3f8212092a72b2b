import { CONFIG_MAPS } from '../../lib/kubernetes/resources.js';
import type { ResourceStore } from './resource-store.js';

/** Argo CD's default `timeout.reconciliation` (the SPEC's figure). */
export const DEFAULT_RECONCILIATION_MS = 180_000;

const UNITS_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * `timeout.reconciliation` as Argo CD reads it: a duration (`180s`, `3m`, `1h30m`, `1d`) or bare seconds;
 * `0`/`0s` (or anything under a second) is off (0). Negative or unparsable: undefined (Argo CD falls back
 * to its default).
 */
export function parseReconciliationTimeout(value: string): number | undefined {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (text === '' || !/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(text)) return undefined;
  let total = 0;
  for (const match of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g))
    total += Number(match[1]) * (UNITS_MS[match[2] as string] as number);
  return total < 1000 ? 0 : total;
}

/**
 * The polling period of the Argo CD instance whose namespace is `namespace`: `argocd-cm`'s
 * `timeout.reconciliation` when the ConfigMap sets it, else `fallbackMs`. Read on every scan (real Argo CD
 * reads it at process start: a change needs a restart there), so a test can turn polling on or off by
 * writing the ConfigMap.
 */
export function pollingPeriodMs(store: ResourceStore, namespace: string, fallbackMs: number): number {
  const configMap = store.get(CONFIG_MAPS, namespace, 'argocd-cm');
  const value = (configMap?.data as Record<string, unknown> | undefined)?.['timeout.reconciliation'];
  if (typeof value !== 'string') return fallbackMs;
  return parseReconciliationTimeout(value) ?? fallbackMs;
}
