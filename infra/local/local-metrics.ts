import type { Env } from '../../lib/config.js';
import { ConfigError } from '../../lib/errors.js';
import { createEmfMetrics } from '../../lib/observability/emf-metrics.js';
import { type Metrics, noMetrics } from '../../lib/ports.js';

/** `LOCAL_METRICS=1` (or `true`): the local stack prints the EMF lines Lambda writes; default off. */
export function localMetricsOn(env: Env): boolean {
  const value = env.LOCAL_METRICS?.trim().toLowerCase() ?? '';
  if (value === '' || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw new ConfigError('LOCAL_METRICS', 'must be 1 (print EMF metric lines) or 0');
}

/**
 * The local stack's metrics: CloudWatch EMF documents on stdout only when asked (they were a quarter of
 * the console, and nothing reads them locally). Lambda always writes them (lib/composition/runtime-adapters.ts).
 */
export function localMetrics(env: Env): Metrics {
  return localMetricsOn(env) ? createEmfMetrics({ service: 'gitops-sync' }) : noMetrics;
}
