import type { TargetKind } from '../rollouts/app-model.js';
import { indexEntry } from './index-entry.js';
import type { FleetObject } from './match-index.js';

/** An object matching cannot fully read, as a reconcile finding would name it. */
export interface UnparseableObject {
  readonly cluster: string;
  readonly kind: TargetKind;
  /** `''` when the object has none (then it cannot be refreshed or keyed by name at all). */
  readonly namespace: string;
  readonly name: string;
  readonly reason: string;
  /** Canonical keys (`host/org/repo`, never a URL) of the repositories it might name; may be empty. */
  readonly repositories: readonly string[];
  /** Readable but with ignored multi-source entries: it is still matched through its other sources. */
  readonly partial: boolean;
}

/**
 * Every object that failed to parse, and every app with ignored sources, with what it might name. Pushes
 * report the first kind only to the repositories it names; this list is how the rest (no recognisable
 * repository) are surfaced once, as reconcile findings, instead of on every push of every repository.
 */
export function unparseableObjects(objects: Iterable<FleetObject>): UnparseableObject[] {
  const out: UnparseableObject[] = [];
  for (const object of objects) {
    const entry = indexEntry(object.cluster, object);
    if (entry.failure === undefined) continue;
    const { cluster, kind, namespace = '', name = '', reason } = entry.failure;
    out.push({
      cluster,
      kind,
      namespace,
      name,
      reason,
      repositories: [...entry.failureKeys].sort(),
      partial: entry.parsed,
    });
  }
  return out;
}
