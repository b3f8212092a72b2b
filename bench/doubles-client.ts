import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { FleetConfig } from '../lib/fleet/fleet-config.js';

/** What the doubles process (`bench/doubles.ts`) announces once up: where dynalite and the repository are. */
export interface DoublesStarted {
  readonly dynamodb: string;
  readonly fleet?: FleetConfig;
  readonly repoURL: string;
}

export interface DoublesClient {
  readonly started: DoublesStarted;
  /** Tells the doubles' process something (`tick`, `reset`) and waits for it to be done. */
  command(line: string): Promise<void>;
  /** API calls by verb since the last `reset`, and when the last PATCH was answered (epoch ms). */
  stats(): Promise<{ list: number; patch: number; lastPatchAt: number }>;
  /** Commits a change to one service of the repository; the new commit is the branch head. */
  commit(service: number): Promise<{ before: string; after: string; path: string }>;
  close(): Promise<void>;
}

/**
 * dynalite, the simulated clusters and the Git server in a process of their own, shared by every process
 * that talks to them (`bench/fleet.ts` runs each function in a child of its own against one doubles process).
 */
export async function startDoubles(options: {
  clusters: number;
  applications: number;
  latencyMs: number;
  realistic: boolean;
}): Promise<DoublesClient> {
  const child: ChildProcessByStdio<Writable, Readable, null> = spawn(
    process.execPath,
    [
      // The doubles hold every simulated Application (100,000 realistic ones are gigabytes of objects).
      '--max-old-space-size=12288',
      '--import',
      'tsx',
      'bench/doubles.ts',
      '--clusters',
      String(options.clusters),
      '--apps',
      String(options.applications),
      '--latency',
      String(options.latencyMs),
      ...(options.realistic ? ['--realistic'] : []),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS: '' } },
  );
  const iterator = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => String((await iterator.next()).value ?? '');
  // One command at a time: the doubles answer in order, one line each.
  let chain: Promise<unknown> = Promise.resolve();
  const ask = (line: string): Promise<string> => {
    const answer = chain.then(() => {
      child.stdin.write(`${line}\n`);
      return next();
    });
    chain = answer.catch(() => {});
    return answer;
  };
  const started = JSON.parse(await next()) as DoublesStarted;
  return {
    started,
    async command(line) {
      await ask(line);
    },
    async stats() {
      return JSON.parse(await ask('stats')) as { list: number; patch: number; lastPatchAt: number };
    },
    async commit(service) {
      const [before = '', after = '', path = ''] = (await ask(`commit ${service}`)).split(' ');
      return { before, after, path };
    },
    async close() {
      child.stdin.end();
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
