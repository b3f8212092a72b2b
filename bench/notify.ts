import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { createMemoryLogger } from '../lib/logger.js';
import { createRolloutNotifier } from '../lib/notify/rollout-notifier.js';
import { createSlackApi } from '../lib/notify/slack-client.js';
import { systemClock } from '../lib/ports.js';
import type { AppRecord, AppTarget } from '../lib/rollouts/app-model.js';
import { NOTICE_APPS_READ, rolloutNotice } from '../lib/rollouts/rollout-notice.js';
import type { AppState } from '../lib/rollouts/state-model.js';
import { createTableRef, type TableRef } from '../lib/store/dynamo.js';
import { dynamoRolloutDigest } from '../lib/store/rollout-digest.js';
import { dynamoRolloutReader } from '../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../lib/store/rollouts.js';
import { createSlackRefs } from '../lib/store/slack-refs.js';
import { type BenchOptions, type Metric, median } from './report.js';

const S = 'notify';

/** What went through the store's client: requests, read units (as DynamoDB bills them), items read. */
interface Meter {
  requests: number;
  readUnits: number;
  items: number;
}

const READS = new Set(['GetItemCommand', 'QueryCommand', 'BatchGetItemCommand', 'ScanCommand']);

function meter(table: TableRef): { readonly taken: () => Meter; on: boolean } {
  let m: Meter = { requests: 0, readUnits: 0, items: 0 };
  const state = {
    on: false,
    taken: () => {
      const out = m;
      m = { requests: 0, readUnits: 0, items: 0 };
      return out;
    },
  };
  table.client.middlewareStack.add(
    (next, context) => async (args) => {
      const read = READS.has(String(context.commandName));
      if (state.on && read) (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      if (!state.on) return result;
      const output = result.output as {
        ConsumedCapacity?: { CapacityUnits?: number };
        Count?: number;
        Item?: unknown;
      };
      m.requests += 1;
      if (read) {
        m.readUnits += output.ConsumedCapacity?.CapacityUnits ?? 0;
        m.items += output.Count ?? (output.Item === undefined ? 0 : 1);
      }
      return result;
    },
    { step: 'initialize', name: 'benchMeter' },
  );
  return state;
}

/** A 20,000-app rollout half way: most apps synced or syncing, 50 failed or degraded, 10 warned. */
function stateOf(i: number): AppState {
  if (i % 667 === 0) return 'failed';
  if (i % 1000 === 1) return 'degraded';
  return i % 5 < 3 ? 'synced' : 'syncing';
}

async function startDoubles() {
  const child: ChildProcessByStdio<Writable, Readable, null> = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/notify-child.ts'],
    { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS: '' } },
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const started = JSON.parse(String((await lines.next()).value)) as { dynamodb: string; slack: string };
  return { ...started, close: () => child.stdin.end() };
}

/**
 * Issue 21's Slack rows: what one notice of a 20,000-app rollout (50 clusters) reads and costs, as track
 * sends one after every poll that changed something, built from every app record (before) and from the
 * rollout's digest (after: the summary's views and the first problem apps). Between notices one app moves
 * on and its cluster's view is stored (not measured), so each notice updates the message.
 */
export async function benchNotify(options: BenchOptions): Promise<Metric[]> {
  const size = options.quick ? 2_000 : 20_000;
  const clusters = options.quick ? 10 : 50;
  const rounds = options.quick ? 3 : 8;
  process.env.AWS_ACCESS_KEY_ID ??= 'local';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
  const doubles = await startDoubles();
  const table = createTableRef({ tableName: 'bench', region: 'local', endpoint: doubles.dynamodb });
  const metered = meter(table);
  try {
    const writer = dynamoRolloutWriter(table, 86_400);
    const sha = 'b'.repeat(40);
    const meta = {
      sha,
      repo: 'org/gitops',
      ref: 'refs/heads/main',
      trigger: 'webhook' as const,
      receivedAt: new Date().toISOString(),
    };
    await writer.start({ ...meta, repoUrl: 'https://github.com/org/gitops' });
    const targets: AppTarget[] = [];
    for (let c = 0; c < clusters; c++) {
      const cluster = `cluster-${String(c).padStart(2, '0')}`;
      const records = writer.newApps(meta, { untilMs: Date.now() + 3_600_000 });
      for (let i = c; i < size; i += clusters) {
        const target = { cluster, namespace: 'argocd', name: `app-${i}`, kind: 'Application' as const };
        const record: AppRecord = {
          ...target,
          state: stateOf(i),
          revision: sha,
          syncStatus: 'Synced',
          health: 'Healthy',
          ...(stateOf(i) === 'failed' ? { message: 'admission webhook denied the request' } : {}),
          ...(i % 2000 === 5 ? { preflight: { verdict: 'warn', reasons: ['Helm chart not rendered'] } } : {}),
        } as AppRecord;
        await records.recordApp(meta, record);
        if (record.state === 'syncing') targets.push(target);
      }
      await records.flush();
    }
    await writer.syncSummary(sha);

    const logger = createMemoryLogger();
    const reader = dynamoRolloutReader(table);
    const store = createSlackRefs({ client: table.client, tableName: table.tableName, clock: systemClock });
    const api = createSlackApi({ token: 'xoxb-bench-token', apiUrl: doubles.slack, logger });
    const notice = (channel: string, digests: boolean) =>
      rolloutNotice({
        rollouts: reader,
        ...(digests ? { digests: dynamoRolloutDigest(table) } : {}),
        notifier: createRolloutNotifier({ slack: { mode: 'bot', api, channel }, store, logger }),
        logger,
      });
    const ways = { before: notice('#before', false), after: notice('#after', true) };
    // The first notice of each posts the message; the ones measured update it, as track's do.
    await ways.before(sha);
    await ways.after(sha);
    const samples = { before: [] as (Meter & { cpu: number })[], after: [] as (Meter & { cpu: number })[] };
    for (let round = 0; round < rounds; round++) {
      const target = targets[round] as AppTarget;
      await writer.transition(sha, target, { state: 'synced' }, 1);
      await writer.syncSummary(sha, target.cluster);
      for (const way of round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const)) {
        metered.taken();
        metered.on = true;
        const cpu = process.cpuUsage();
        await ways[way](sha);
        const used = process.cpuUsage(cpu);
        metered.on = false;
        samples[way].push({ ...metered.taken(), cpu: (used.user + used.system) / 1000 });
      }
    }
    // What the digest read alone costs (the rest of a notice: the notice state's three requests, one
    // chat.update through @slack/web-api, the rendering).
    const digests = dynamoRolloutDigest(table);
    const digestCpu: number[] = [];
    for (let round = 0; round < rounds * 2; round++) {
      const cpu = process.cpuUsage();
      await digests.digest(sha, NOTICE_APPS_READ);
      const used = process.cpuUsage(cpu);
      digestCpu.push((used.user + used.system) / 1000);
    }
    const label = `${size.toLocaleString('en-US')}-app rollout over ${clusters} clusters`;
    const rows: Metric[] = [];
    for (const way of ['before', 'after'] as const) {
      const s = samples[way];
      const what =
        way === 'before'
          ? 'every app record read (before)'
          : `summary views + at most ${NOTICE_APPS_READ} problem and ${NOTICE_APPS_READ} warned apps (after)`;
      const bounded = way === 'after';
      rows.push(
        {
          scenario: S,
          metric: `Slack notice, ${label}, ${what}: DynamoDB items read per notice`,
          value: median(s.map((x) => x.items)),
          unit: 'items',
          // the summary, the notice state, and the two bounded lists: whatever the rollout's size
          ...(bounded ? { target: { max: 2 + 2 * NOTICE_APPS_READ } } : {}),
        },
        {
          scenario: S,
          metric: `Slack notice, ${label}, ${what}: DynamoDB read units per notice`,
          value: median(s.map((x) => x.readUnits)),
          unit: 'RCU',
          ...(bounded ? { target: { max: 25 } } : {}),
        },
        {
          scenario: S,
          metric: `Slack notice, ${label}, ${what}: DynamoDB requests per notice`,
          value: median(s.map((x) => x.requests)),
          unit: 'requests',
        },
        {
          scenario: S,
          metric: `Slack notice, ${label}, ${what}: CPU per notice (median, n=${s.length})`,
          value: median(s.map((x) => x.cpu)),
          unit: 'ms',
          ...(bounded ? { target: { max: 10 } } : {}),
        },
      );
    }
    const read = median(digestCpu);
    rows.push({
      scenario: S,
      metric: `Slack notice, ${label}, after: of which reading the digest (3 requests), CPU (median, n=${digestCpu.length})`,
      value: read,
      unit: 'ms',
    });
    const last = rows.findIndex((r) => r.metric.includes('(after): CPU per notice'));
    const cpuRow = rows[last];
    if (cpuRow !== undefined) {
      rows[last] = {
        ...cpuRow,
        whyMissed: `the notice's fixed part, the same at 2,000 apps: ${read.toFixed(1)} ms reads the digest, the rest is the notice state's three DynamoDB requests, one chat.update through @slack/web-api and the rendering; nothing in it grows with the rollout`,
      };
    }
    return rows;
  } finally {
    table.client.destroy();
    doubles.close();
  }
}
