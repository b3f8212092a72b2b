import { startDoubles } from './doubles-client.js';
import { FUNCTIONS, type FunctionName, type InvokeResult, type MemoryResult } from './fleet-model.js';
import { type FunctionProcess, startFunction } from './fleet-process.js';
import { pushMessage } from './push-message.js';

export interface Size {
  /** What `--fleet-size=` matches besides the name (`5k`, `100k`). */
  readonly tag: string;
  readonly name: string;
  readonly clusters: number;
  readonly apps: number;
  readonly latencyMs: number;
  readonly realistic: boolean;
  readonly runs: number;
  readonly reconcile: boolean;
}

/** One measured run: a push through every function, each invocation as SQS or EventBridge would make it. */
export interface RunLine {
  readonly webhook: { wall: number; cpu: number; status: number };
  readonly plan: { wall: number; cpu: number };
  readonly fanout: {
    wall: number;
    toLastPatch: number;
    /** Plan plus the cluster's work item in its batch: push → that work item's end. */
    perCluster: number[];
    /** Each work item's time in its batch of 5, from the batch's start. */
    itemMs: number[];
    batchWalls: number[];
    cpu: number;
    patches: number;
    lists: number;
  };
  readonly track: {
    wall: number;
    cpu: number;
    lists: number;
    chains: number;
    changed: number;
    itemMs: number[];
    batchWalls: number[];
  };
  readonly reconcile?: { wall: number; cpu: number; result: Record<string, unknown> };
  readonly sweep: { wall: number; cpu: number };
}

export interface SizeResult {
  readonly runs: RunLine[];
  readonly memory: Partial<Record<FunctionName, MemoryResult>>;
  /** A function that failed (ran out of heap, say): the runs before it and every other function's memory. */
  readonly error?: string;
}

// serverless.yml's `batchSize` of the fanout and track event sources: one invocation handles that many
// messages side by side.
export const FANOUT_BATCH_SIZE = 5;
export const TRACK_BATCH_SIZE = 10;

/** A queue's messages as SQS hands them to the function: batches, one invocation after another. */
async function inBatches(fn: FunctionProcess, messages: readonly unknown[], size: number) {
  const results: InvokeResult[] = [];
  for (let i = 0; i < messages.length; i += size) {
    results.push(await fn.invoke({ messages: messages.slice(i, i + size) }));
  }
  return results;
}

/**
 * One fleet size: the doubles in one process, each function in a child of its own under a 256 MB Lambda's
 * heap, its peak RSS and heap its own. Run 0 warms every function up (JIT, first Git reads, connections, as
 * a warm Lambda has) and is not reported: it pushes one service's file, so every path runs once without
 * the doubles syncing the whole fleet twice. Measured runs push unknown files: every app refreshes.
 */
export async function runSize(size: Size): Promise<SizeResult> {
  const doubles = await startDoubles({
    clusters: size.clusters,
    applications: size.apps,
    latencyMs: size.latencyMs,
    realistic: size.realistic,
  });
  const children: Partial<Record<FunctionName, FunctionProcess>> = {};
  try {
    for (const name of FUNCTIONS) {
      if (name === 'reconcile' && !size.reconcile) continue;
      children[name] = await startFunction(name, doubles.started);
    }
    const { webhook, fanout, track, reconcile, sweep } = children as Record<FunctionName, FunctionProcess>;
    const runs: RunLine[] = [];
    let error: string | undefined;
    try {
      for (let run = 0; run <= size.runs; run++) {
        const commit = await doubles.commit(run % 100);
        await doubles.command('reset');
        const delivered = await webhook.invoke({ commit });
        // The webhook's own message names the one changed file; the measured runs' push is marked truncated.
        const started = Date.now();
        const plan = await fanout.invoke({
          messages: [pushMessage(doubles.started.repoURL, commit, run === 0)],
        });
        let items = plan.push;
        const chains: unknown[] = [...plan.track];
        const perCluster: number[] = [];
        const itemMs: number[] = [];
        const batchWalls: number[] = [];
        let fanoutCpu = plan.cpu;
        // Work items can send more (a continuation): those too, a few rounds at most.
        for (let round = 0; round < 3 && items.length > 0; round++) {
          const next: unknown[] = [];
          for (const batch of await inBatches(fanout, items, FANOUT_BATCH_SIZE)) {
            fanoutCpu += batch.cpu;
            batchWalls.push(batch.wall);
            itemMs.push(...batch.itemMs);
            if (round === 0) perCluster.push(...batch.itemMs.map((ms) => plan.wall + ms));
            next.push(...batch.push);
            chains.push(...batch.track);
          }
          items = next;
        }
        const fanoutWall = Date.now() - started;
        const fanoutStats = await doubles.stats();
        // The controller syncs every app; one track poll then sees every app change state.
        await doubles.command('tick');
        await doubles.command('tick');
        await doubles.command('reset');
        const polls = await inBatches(track, chains, TRACK_BATCH_SIZE);
        const pollStats = await doubles.stats();
        // Later polls until nothing is in flight, so the next run starts from a quiet fleet.
        let waiting = polls.flatMap((p) => p.track);
        for (let i = 0; i < 5 && waiting.length > 0; i++) {
          await doubles.command('tick');
          waiting = (await inBatches(track, waiting, TRACK_BATCH_SIZE)).flatMap((p) => p.track);
        }
        const pass = reconcile === undefined ? undefined : await reconcile.invoke({});
        const swept = await sweep.invoke({});
        if (run === 0) {
          for (const child of Object.values(children)) await child.measure();
          continue;
        }
        const sum = (results: readonly InvokeResult[], key: 'wall' | 'cpu' | 'changed') =>
          results.reduce((total, r) => total + r[key], 0);
        runs.push({
          webhook: { wall: delivered.wall, cpu: delivered.cpu, status: delivered.status ?? 0 },
          plan: { wall: plan.wall, cpu: plan.cpu },
          fanout: {
            wall: fanoutWall,
            toLastPatch: fanoutStats.lastPatchAt - started,
            perCluster,
            itemMs,
            batchWalls,
            cpu: fanoutCpu,
            patches: fanoutStats.patch,
            lists: fanoutStats.list,
          },
          track: {
            wall: sum(polls, 'wall'),
            cpu: sum(polls, 'cpu'),
            lists: pollStats.list,
            chains: chains.length,
            changed: sum(polls, 'changed'),
            itemMs: polls.flatMap((p) => p.itemMs),
            batchWalls: polls.map((p) => p.wall),
          },
          ...(pass === undefined
            ? {}
            : { reconcile: { wall: pass.wall, cpu: pass.cpu, result: pass.result ?? {} } }),
          sweep: { wall: swept.wall, cpu: swept.cpu },
        });
      }
    } catch (failed) {
      error = String(failed);
    }
    const memory: Partial<Record<FunctionName, MemoryResult>> = {};
    for (const [name, child] of Object.entries(children)) {
      const measured = await child.memory().catch(() => undefined);
      if (measured !== undefined) memory[name as FunctionName] = measured;
    }
    return { runs, memory, ...(error === undefined ? {} : { error }) };
  } finally {
    for (const child of Object.values(children)) await child.close();
    await doubles.close();
  }
}
