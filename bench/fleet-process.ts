import { type ChildProcess, spawn } from 'node:child_process';
import type { DoublesStarted } from './doubles-client.js';
import type { ChildReply, ChildRequest, FunctionName, InvokeResult, MemoryResult } from './fleet-model.js';

export const FLEET_CHILD = '.bench-build/fleet-child.mjs';

/**
 * The heap a 256 MB Lambda function's Node.js runs with: the runtime's bootstrap derives V8's limits from
 * `AWS_LAMBDA_FUNCTION_MEMORY_SIZE` (new space a tenth of it, semi space half of that, old space the rest).
 * Without a limit V8 grows the heap lazily while the machine has room (24 GB here), and peak RSS measures
 * garbage V8 had no reason to collect; with it, the peak is what a 256 MB function would hold, and a live set
 * that does not fit ends the size with an out-of-memory error, as the function would.
 */
export const LAMBDA_MEMORY_MB = 256;
export function lambdaHeapFlags(memoryMb: number): string[] {
  const newSpace = Math.floor(memoryMb / 10);
  return [`--max-semi-space-size=${Math.floor(newSpace / 2)}`, `--max-old-space-size=${memoryMb - newSpace}`];
}

/** One function's child process (bench/fleet-child.ts), asked one request at a time over IPC. */
export interface FunctionProcess {
  invoke(request: {
    messages?: readonly unknown[];
    commit?: { before: string; after: string; path: string };
  }): Promise<InvokeResult>;
  measure(): Promise<void>;
  memory(): Promise<MemoryResult>;
  close(): Promise<void>;
}

export async function startFunction(fn: FunctionName, started: DoublesStarted): Promise<FunctionProcess> {
  // BENCH_HEAP_SNAPSHOT=<dir>: a heap snapshot there when a function nears its heap limit (what it holds).
  const snapshot = process.env.BENCH_HEAP_SNAPSHOT;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--expose-gc',
      ...lambdaHeapFlags(LAMBDA_MEMORY_MB),
      ...(snapshot === undefined ? [] : ['--heapsnapshot-near-heap-limit=1', `--diagnostic-dir=${snapshot}`]),
      FLEET_CHILD,
    ],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, NODE_OPTIONS: '' } },
  );
  let exited: string | undefined;
  let pending: { resolve: (r: ChildReply) => void; reject: (e: Error) => void } | undefined;
  child.on('message', (reply: ChildReply) => {
    const waiting = pending;
    pending = undefined;
    waiting?.resolve(reply);
  });
  child.once('exit', (code, signal) => {
    exited = `the ${fn} child exited (${code ?? signal}) before answering`;
    pending?.reject(new Error(exited));
  });
  let chain: Promise<unknown> = Promise.resolve();
  const call = <T>(request: ChildRequest): Promise<T> => {
    const answer = chain.then(async () => {
      if (exited !== undefined) throw new Error(exited);
      const reply = await new Promise<ChildReply>((resolve, reject) => {
        pending = { resolve, reject };
        child.send(request);
      });
      if ('error' in reply) throw new Error(`${fn}: ${reply.error}`);
      return reply.ok as T;
    });
    chain = answer.catch(() => {});
    return answer;
  };
  await call({ do: 'init', fn, started });
  return {
    invoke: (request) => call<InvokeResult>({ do: 'invoke', ...request }),
    measure: async () => {
      await call({ do: 'measure' });
    },
    memory: () => call<MemoryResult>({ do: 'memory' }),
    async close() {
      if (exited !== undefined) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      await gone;
    },
  };
}
