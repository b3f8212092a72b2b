/** A fault the simulated API server injects into matching requests. */
export interface Fault {
  /** Delay before answering (or before failing). */
  readonly latencyMs?: number;
  /** Answer with this HTTP status and a `Status` body instead of serving the request. */
  readonly status?: number;
  /** With `status`: the share of matching requests that fail (default 1 = all). */
  readonly failRate?: number;
  /** Never answer (the client has to time out). */
  readonly hang?: boolean;
  /** With a 429/503: the `Retry-After` seconds to send. */
  readonly retryAfterSeconds?: number;
  /** Only this many matching requests are affected, then the fault clears itself. */
  readonly times?: number;
  /** Only requests with this verb and/or plural resource. */
  readonly only?: { readonly verb?: string; readonly resource?: string };
}

export interface FaultDecision {
  readonly latencyMs: number;
  readonly hang: boolean;
  readonly status?: number;
  readonly retryAfterSeconds?: number;
}

/** Runtime-switchable fault injection: `server.faults.set({...})`, `server.faults.clear()`. */
export class FaultInjector {
  private fault: Fault | undefined;
  private remaining = Number.POSITIVE_INFINITY;

  constructor(private readonly random: () => number = Math.random) {}

  set(fault: Fault): void {
    this.fault = fault;
    this.remaining = fault.times ?? Number.POSITIVE_INFINITY;
  }

  clear(): void {
    this.fault = undefined;
  }

  decide(verb: string, resource: string): FaultDecision | undefined {
    const fault = this.fault;
    if (fault === undefined) return undefined;
    if (fault.only?.verb !== undefined && fault.only.verb !== verb) return undefined;
    if (fault.only?.resource !== undefined && fault.only.resource !== resource) return undefined;
    if (this.remaining <= 0) return undefined;
    const fails = fault.status !== undefined && this.random() < (fault.failRate ?? 1);
    if (!fails && fault.hang !== true && fault.latencyMs === undefined) return undefined;
    this.remaining--;
    if (this.remaining <= 0) this.fault = undefined;
    return {
      latencyMs: fault.latencyMs ?? 0,
      hang: fault.hang === true,
      ...(fails && fault.status !== undefined ? { status: fault.status } : {}),
      ...(fault.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: fault.retryAfterSeconds }),
    };
  }
}

export interface RequestRecord {
  readonly verb: string;
  /** Plural resource, or `discovery`. */
  readonly resource: string;
  readonly namespace?: string;
  readonly name?: string;
  /** An injected fault answered it (or it hung): it never reached the store. */
  readonly faulted?: boolean;
}

/** Every request the server received, for assertions such as "one LIST per kind per cluster". */
export class RequestLog {
  private records: RequestRecord[] = [];

  record(entry: RequestRecord): void {
    this.records.push(entry);
  }

  count(filter: { verb?: string; resource?: string } = {}): number {
    return this.records.filter(
      (r) =>
        (filter.verb === undefined || r.verb === filter.verb) &&
        (filter.resource === undefined || r.resource === filter.resource),
    ).length;
  }

  /** PATCHes that reached the store, per object name. */
  appliedPatches(resource: string): Map<string, number> {
    const counts = new Map<string, number>();
    for (const r of this.records) {
      if (r.verb !== 'patch' || r.resource !== resource || r.faulted === true || r.name === undefined)
        continue;
      counts.set(r.name, (counts.get(r.name) ?? 0) + 1);
    }
    return counts;
  }

  all(): readonly RequestRecord[] {
    return this.records;
  }

  reset(): void {
    this.records = [];
  }
}
