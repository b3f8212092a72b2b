import type { AppTarget, TargetKind } from '../rollouts/app-model.js';

/** One cluster of the fleet as fan-out and track see it: list the kinds it holds, patch one object. */
export interface FleetCluster {
  readonly name: string;
  /** The kinds this cluster holds (Application/ApplicationSet with Argo CD, GitRepository with Flux). */
  readonly kinds: readonly TargetKind[];
  /** Concurrent refresh PATCHes against this cluster. */
  readonly concurrency: number;
  /**
   * One LIST of a kind in its namespace. `refresh`: only what fan-out reads (no per-resource status,
   * history or sync results); `track`: also the failed sync results; by default also what the audit reads.
   */
  list(kind: TargetKind, view?: 'refresh' | 'track'): Promise<readonly unknown[]>;
  /**
   * JSON merge patch of one object, retried (429/5xx/timeouts) a bounded number of times. A patch carrying
   * `metadata.resourceVersion` is refused (409) once the object moved on: with `rebuild`, the object is read
   * again and the patch `rebuild` makes of it sent instead (a few rounds; undefined: nothing to patch any
   * more); without it, the 409 is thrown.
   */
  patch(target: AppTarget, patch: object, rebuild?: (current: unknown) => object | undefined): Promise<void>;
}

export interface FleetGateway {
  readonly clusters: readonly FleetCluster[];
  cluster(name: string): FleetCluster | undefined;
}
