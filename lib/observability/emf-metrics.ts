import { MetricUnit, Metrics as PowertoolsMetrics } from '@aws-lambda-powertools/metrics';
import type { MetricDimensions, Metrics } from '../ports.js';

export const METRICS_NAMESPACE = 'GitopsSync';

interface Entry {
  readonly name: string;
  readonly unit: (typeof MetricUnit)[keyof typeof MetricUnit];
  readonly value: number;
}

/**
 * Metrics as CloudWatch EMF lines on stdout (Powertools Metrics): no API call, CloudWatch extracts them
 * from the log. One EMF document is written per dimension set, since an EMF document's dimensions apply
 * to every metric in it.
 */
export function createEmfMetrics(options: { service: string; namespace?: string }): Metrics {
  const groups = new Map<string, { dimensions: MetricDimensions; entries: Entry[] }>();
  const add = (name: string, unit: Entry['unit'], value: number, dimensions: MetricDimensions = {}) => {
    if (!Number.isFinite(value)) return;
    const key = JSON.stringify(Object.entries(dimensions).sort(([a], [b]) => a.localeCompare(b)));
    let group = groups.get(key);
    if (group === undefined) {
      group = { dimensions, entries: [] };
      groups.set(key, group);
    }
    group.entries.push({ name, unit, value });
  };
  return {
    count: (name, value = 1, dimensions) => add(name, MetricUnit.Count, value, dimensions),
    timing: (name, ms, dimensions) => add(name, MetricUnit.Milliseconds, Math.max(0, ms), dimensions),
    flush() {
      for (const { dimensions, entries } of groups.values()) {
        const emf = new PowertoolsMetrics({
          namespace: options.namespace ?? METRICS_NAMESPACE,
          serviceName: options.service,
          defaultDimensions: { ...dimensions },
        });
        for (const entry of entries) emf.addMetric(entry.name, entry.unit, entry.value);
        emf.publishStoredMetrics();
      }
      groups.clear();
    },
  };
}
