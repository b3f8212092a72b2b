import type { DoublesStarted } from './doubles-client.js';

// What bench/fleet.ts and its function children (bench/fleet-child.ts) say to each other over IPC.

/** The five functions, each in a child process of its own (the sweep is reconcile's every-minute event). */
export const FUNCTIONS = ['webhook', 'fanout', 'track', 'reconcile', 'sweep'] as const;
export type FunctionName = (typeof FUNCTIONS)[number];

export type ChildRequest =
  | { readonly do: 'init'; readonly fn: FunctionName; readonly started: DoublesStarted }
  /**
   * One invocation: the messages of one SQS batch side by side (fanout, track), one delivery (webhook, of
   * `commit`), one pass (reconcile, sweep).
   */
  | {
      readonly do: 'invoke';
      readonly messages?: readonly unknown[];
      readonly commit?: { before: string; after: string; path: string };
    }
  /** The warm-up is over: peaks count from here. */
  | { readonly do: 'measure' }
  | { readonly do: 'memory' };

export interface InvokeResult {
  readonly wall: number;
  readonly cpu: number;
  /** Each message's own time, from the batch's start to its handler's end (ms). */
  readonly itemMs: readonly number[];
  /** State changes track logged (`cluster polled` lines' `changed`). */
  readonly changed: number;
  /** What the invocation sent to the fanout and track queues (the next invocations' messages). */
  readonly push: readonly unknown[];
  readonly track: readonly unknown[];
  readonly result?: Record<string, unknown>;
  readonly status?: number;
}

export interface MemoryResult {
  /** Sampled every 10 ms since `measure` (MB). */
  readonly peakRssMb: number;
  readonly peakHeapMb: number;
  /** After start-up (bundle loaded, runtime built, doubles reachable), before the first invocation. */
  readonly idleRssMb: number;
  /** `process.resourceUsage().maxRSS`, warm-up included. */
  readonly maxRssMb: number;
}

export type ChildReply = { readonly ok: unknown } | { readonly error: string };
