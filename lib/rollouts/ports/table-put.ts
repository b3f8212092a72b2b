/**
 * One item a port writes to the orchestrator's table, handed to another port's batched write so that both
 * go in one request (the tracker registration rides in the batch of a work item's decisions). Opaque to the
 * domain: only the store that made it knows its shape.
 */
export interface TablePut {
  readonly item: Readonly<Record<string, unknown>>;
}
