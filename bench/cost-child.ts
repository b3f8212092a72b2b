import { parseArgs } from 'node:util';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import type { MemoryQueue } from '../infra/local/memory-queue.js';
import { webhookHandler } from '../lib/handlers.js';
import type { LogFields, Logger, MetricDimensions, Metrics, SendOptions } from '../lib/ports.js';
import type { TrackMessage } from '../lib/queue/messages.js';
import { OPEN_PK, SUMMARY_SK } from '../lib/store/keys.js';
import { billedMs, type FunctionUse, type Usage } from './cost-model.js';
import { signedPush } from './signed-push.js';
import { rolloutSummary, startBenchWorld } from './world.js';

// What one push, one reconcile pass and one sweep use, counted as AWS bills them (`bench/cost.ts` starts
// this child and prices the counts): per function the invocations (SQS batches of 5 for fan-out, 10 for
// track) and billed duration; DynamoDB read and write units as dynalite reports them (ReturnConsumedCapacity,
// plus the index writes an item's write makes, which dynalite leaves out: `gsiWrites`); SQS requests (sends, and a
// receive and a batch delete per Lambda batch); log bytes at the deployed INFO level, EMF documents included.
// Prints one JSON line.
const { values } = parseArgs({
  options: {
    clusters: { type: 'string' },
    apps: { type: 'string' },
    latency: { type: 'string' },
    'sync-seconds': { type: 'string' },
  },
});
const MEMORY = { webhook: 512, fanout: 1024, track: 512, reconcile: 1024 } as const;
type Fn = keyof typeof MEMORY;
type Phase = 'push' | 'track' | 'idle' | 'reconcile' | 'sweep';

interface Tally {
  functions: Record<string, { invocations: number; billedMs: number; memoryMb: number }>;
  dynamoReadUnits: number;
  dynamoWriteUnits: number;
  dynamoRequests: number;
  sqsRequests: number;
  httpApiRequests: number;
  logBytes: number;
  /** Write units by request and item kind (`UpdateItem #SUMMARY`): where a push's money goes. */
  writeUnitsBy: Record<string, number>;
}
const fresh = (): Tally => ({
  writeUnitsBy: {},
  functions: {},
  dynamoReadUnits: 0,
  dynamoWriteUnits: 0,
  dynamoRequests: 0,
  sqsRequests: 0,
  httpApiRequests: 0,
  logBytes: 0,
});
const tallies: Record<Phase, Tally> = {
  push: fresh(),
  track: fresh(),
  idle: fresh(),
  reconcile: fresh(),
  sweep: fresh(),
};
let phase: Phase | undefined;
const tally = () => (phase === undefined ? undefined : tallies[phase]);

// DynamoDB: every request asks for its consumed capacity; the answer's units are added to the phase.
const GSI_KEYS = ['gsi1pk', 'gsi2pk', 'gsi3pk'];
const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan']);
const send = DynamoDBClient.prototype.send;
DynamoDBClient.prototype.send = async function (this: DynamoDBClient, ...args: Parameters<typeof send>) {
  const command = args[0] as unknown as { input: Record<string, unknown>; constructor: { name: string } };
  const action = command.constructor.name.replace(/Command$/, '');
  if (!action.startsWith('Describe') && !action.startsWith('Create'))
    command.input.ReturnConsumedCapacity = 'TOTAL';
  const output = (await send.apply(this, args)) as unknown as { ConsumedCapacity?: unknown };
  const t = tally();
  if (t !== undefined) {
    t.dynamoRequests += 1;
    const consumed = output.ConsumedCapacity;
    const units = (Array.isArray(consumed) ? consumed : consumed === undefined ? [] : [consumed]).reduce(
      (n: number, c: { CapacityUnits?: number }) => n + (c.CapacityUnits ?? 0),
      0,
    );
    if (READS.has(action)) t.dynamoReadUnits += units;
    else {
      const billed = units + gsiWrites(action, command.input, units);
      t.dynamoWriteUnits += billed;
      for (const [what, share] of writeShares(action, command.input)) {
        t.writeUnitsBy[what] = (t.writeUnitsBy[what] ?? 0) + billed * share;
      }
    }
  }
  return output as never;
} as unknown as typeof send;

/** The kind of item a write is for: its sort key up to the first `#` after the first character. */
function itemKind(key: Record<string, { S?: string }> | undefined): string {
  const sk = key?.sk?.S;
  if (sk === undefined) return '?';
  const end = sk.indexOf('#', 1);
  return end < 0 ? sk : sk.slice(0, end);
}

/** Who a write's units go to (`UpdateItem #SUMMARY`): a batch's split over its item kinds by their sizes. */
function writeShares(action: string, input: Record<string, unknown>): [string, number][] {
  if (action !== 'BatchWriteItem') {
    return [[`${action} ${itemKind((input.Key ?? input.Item) as Record<string, { S?: string }>)}`, 1]];
  }
  const sizes = new Map<string, number>();
  let total = 0;
  for (const requests of Object.values((input.RequestItems ?? {}) as Record<string, unknown[]>)) {
    for (const r of requests) {
      const put = (r as { PutRequest?: { Item?: Record<string, unknown> } }).PutRequest?.Item;
      const del = (r as { DeleteRequest?: { Key?: Record<string, unknown> } }).DeleteRequest?.Key;
      const item = put ?? del ?? {};
      const what = `BatchWriteItem ${put === undefined ? 'delete ' : ''}${itemKind(item as Record<string, { S?: string }>)}`;
      // The table's and the ALL indexes' units (a keys-only entry's unit, when written, is left out here).
      const size = Math.ceil(itemSize(item) / 1024) * (put === undefined ? 1 : 1 + count(put));
      sizes.set(what, (sizes.get(what) ?? 0) + size);
      total += size;
    }
  }
  return [...sizes].map(([what, size]) => [what, total === 0 ? 0 : size / total]);
}

/** The indexes an item carries keys of. */
function count(item: unknown): number {
  return GSI_KEYS.filter((k) => (item as Record<string, unknown> | undefined)?.[k] !== undefined).length;
}

/** The keys-only index (gsi4: app histories): an entry holds only keys, one unit to write. */
const KEYS_ONLY_KEY = 'gsi4pk';
const inKeysOnly = (item: unknown) =>
  (item as Record<string, unknown> | undefined)?.[KEYS_ONLY_KEY] !== undefined;
/** Each item's keys-only entry as last written (by the item's key). */
const keysOnlyEntries = new Map<string, string>();
const attr = (item: Record<string, unknown>, name: string) => JSON.stringify(item[name] ?? null);

/**
 * The keys-only index's write units of a put: one when it makes or moves the item's entry, none when it
 * rewrites an item whose entry holds the same keys (no projected attribute changes: DynamoDB's GSI write rules).
 */
function keysOnlyWrite(item: Record<string, unknown> | undefined): number {
  if (item === undefined || !inKeysOnly(item)) return 0;
  const key = `${attr(item, 'pk')}\n${attr(item, 'sk')}`;
  const entry = `${attr(item, 'gsi4pk')}\n${attr(item, 'gsi4sk')}`;
  if (keysOnlyEntries.get(key) === entry) return 0;
  keysOnlyEntries.set(key, entry);
  return 1;
}

/** A keys-only entry's stored size: the table's and the index's keys (marshalled) and the index overhead. */
function keysOnlyBytes(item: Record<string, unknown>): number {
  const keys = Object.fromEntries(
    ['pk', 'sk', 'gsi4pk', 'gsi4sk'].map((k) => [k, item[k]]).filter(([, v]) => v),
  );
  return itemSize(keys) + ITEM_OVERHEAD_BYTES;
}

/** An item's size as DynamoDB counts it: attribute names and values, marshalled (`{ S: … }`) form. */
function itemSize(item: Record<string, unknown>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) bytes += Buffer.byteLength(name) + valueSize(value);
  return bytes;
}

function valueSize(value: unknown): number {
  const [[type, v]] = Object.entries(value as Record<string, unknown>) as [[string, unknown]];
  if (type === 'S') return Buffer.byteLength(String(v));
  if (type === 'N') return Math.ceil(String(v).replace(/^-|\.|^0+/g, '').length / 2) + 1;
  if (type === 'B') return (v as Uint8Array).byteLength;
  if (type === 'L') return 3 + (v as unknown[]).reduce((n: number, e) => n + 1 + valueSize(e), 0);
  if (type === 'M') return 3 + Object.keys(v as object).length + itemSize(v as Record<string, unknown>);
  if (type === 'SS' || type === 'NS') return (v as string[]).reduce((n, e) => n + Buffer.byteLength(e), 0);
  return 1;
}

/**
 * The index writes of a table write, which dynalite leaves out. gsi1-3 project ALL, so a write that puts an
 * item carrying an index's key, or changes any attribute of an item in an index, writes that index's entry
 * too, billed like the item at its size (DynamoDB's GSI write rules): `units` is the base write's. A rollout's
 * list entry carries all three keys (short SHA, both rollout lists) and its summary none; app items gsi2/gsi3
 * while a problem or warned (counted when the update names them). gsi4 (app histories) is keys-only: a put
 * that makes an item's entry one unit, one that rewrites an item with the same keys none (no projected
 * attribute changes), an update that names none of them nothing. Batch puts are sized one by one.
 */
function gsiWrites(action: string, input: Record<string, unknown>, units: number): number {
  if (action === 'PutItem')
    return units * count(input.Item) + keysOnlyWrite(input.Item as Record<string, unknown> | undefined);
  if (action === 'UpdateItem') {
    const sk = String((input.Key as Record<string, { S?: string }> | undefined)?.sk?.S ?? '');
    // A list entry is in all three; a summary in none (lib/store/rollout-listing.ts).
    if (sk === '#LISTED') return units * GSI_KEYS.length;
    const expression = String(input.UpdateExpression ?? '');
    const names = Object.values((input.ExpressionAttributeNames ?? {}) as Record<string, string>);
    const named = GSI_KEYS.filter((k) => expression.includes(k) || names.includes(k));
    return (
      units * new Set(named).size +
      (expression.includes('gsi4') || names.some((n) => n.startsWith('gsi4')) ? 1 : 0)
    );
  }
  if (action === 'BatchWriteItem') {
    let n = 0;
    for (const requests of Object.values((input.RequestItems ?? {}) as Record<string, unknown[]>)) {
      for (const r of requests) {
        const item = (r as { PutRequest?: { Item?: Record<string, unknown> } }).PutRequest?.Item;
        if (item !== undefined) n += Math.ceil(itemSize(item) / 1024) * count(item) + keysOnlyWrite(item);
      }
    }
    return n;
  }
  return 0;
}

// Logs: what Powertools' Logger would print at INFO (a JSON line per entry, with its standard keys).
const ENVELOPE = JSON.stringify({
  level: 'INFO',
  timestamp: '2026-12-02T10:00:00.000Z',
  service: 'gitops-sync',
  cold_start: false,
  function_arn: 'arn:aws:lambda:us-east-1:123456789012:function:gitops-sync-prod-fanout',
  function_memory_size: '1024',
  function_name: 'gitops-sync-prod-fanout',
  function_request_id: '00000000-0000-0000-0000-000000000000',
  sampling_rate: 0,
  xray_trace_id: '1-00000000-000000000000000000000000',
}).length;
function countingLogger(base: LogFields = {}): Logger {
  const line = (message: string, fields?: LogFields) => {
    const t = tally();
    if (t !== undefined) t.logBytes += ENVELOPE + JSON.stringify({ message, ...base, ...fields }).length + 1;
  };
  return {
    debug: () => {},
    info: line,
    warn: line,
    error: line,
    child: (fields) => countingLogger({ ...base, ...fields }),
  };
}
const metricNames = new Set<string>();
const pending = new Map<string, number>();
const metrics: Metrics = {
  count: (name, _value, dimensions) => note(name, dimensions),
  timing: (name, _ms, dimensions) => note(name, dimensions),
  flush: () => {
    const t = tally();
    // One EMF document per dimension set: its `_aws` block, the dimensions and one value per metric.
    for (const [, metricsIn] of pending) if (t !== undefined) t.logBytes += 260 + metricsIn * 70;
    pending.clear();
  },
};
function note(name: string, dimensions: MetricDimensions | undefined): void {
  const dims = JSON.stringify(Object.entries(dimensions ?? {}).sort());
  metricNames.add(`${name} ${dims}`);
  pending.set(dims, (pending.get(dims) ?? 0) + 1);
}

const clusters = Number(values.clusters);
const world = await startBenchWorld({
  clusters,
  applications: Number(values.apps),
  latencyMs: Number(values.latency ?? 20),
  realistic: false,
  logger: countingLogger(),
  metrics,
});
// SQS: every send is a request, a batch send one per 10 entries.
function countSends<M>(queue: MemoryQueue<M>): void {
  const one = queue.send.bind(queue);
  const many = queue.sendBatch.bind(queue);
  queue.send = async (message: M, options?: SendOptions) => {
    const t = tally();
    if (t !== undefined) t.sqsRequests += 1;
    return one(message, options);
  };
  queue.sendBatch = async (entries: Parameters<MemoryQueue<M>['sendBatch']>[0]) => {
    const t = tally();
    if (t !== undefined) t.sqsRequests += Math.ceil(entries.length / 10);
    return many(entries);
  };
}
countSends(world.queues.push);
countSends(world.queues.track);

/** One Lambda invocation of `fn` over `batch` messages run side by side: billed as Lambda would bill it. */
async function invoke(fn: Fn, run: () => Promise<unknown>, fromQueue: boolean): Promise<void> {
  const t = tally();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run();
  metrics.flush();
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (t === undefined) return;
  const use = t.functions[fn] ?? { invocations: 0, billedMs: 0, memoryMb: MEMORY[fn] };
  t.functions[fn] = use;
  use.invocations += 1;
  use.billedMs += billedMs(wall, (used.user + used.system) / 1000, MEMORY[fn]);
  // The event source mapping's ReceiveMessage that brought the batch and its DeleteMessageBatch.
  if (fromQueue) t.sqsRequests += 2;
}

/** `a` plus `b` scaled: the push's own use plus its track polls, as many as a real sync would need. */
function withScaled(a: Tally, b: Tally, scale: number): Tally {
  const functions: Tally['functions'] = { ...a.functions };
  for (const [fn, use] of Object.entries(b.functions)) {
    const before = functions[fn];
    functions[fn] = {
      ...use,
      invocations: (before?.invocations ?? 0) + use.invocations * scale,
      billedMs: (before?.billedMs ?? 0) + use.billedMs * scale,
    };
  }
  return {
    functions,
    dynamoReadUnits: a.dynamoReadUnits + b.dynamoReadUnits * scale,
    dynamoWriteUnits: a.dynamoWriteUnits + b.dynamoWriteUnits * scale,
    dynamoRequests: a.dynamoRequests + b.dynamoRequests * scale,
    sqsRequests: a.sqsRequests + b.sqsRequests * scale,
    httpApiRequests: a.httpApiRequests,
    logBytes: a.logBytes + b.logBytes * scale,
    writeUnitsBy: Object.fromEntries(
      [...new Set([...Object.keys(a.writeUnitsBy), ...Object.keys(b.writeUnitsBy)])].map((k) => [
        k,
        (a.writeUnitsBy[k] ?? 0) + (b.writeUnitsBy[k] ?? 0) * scale,
      ]),
    ),
  };
}

/** Polls a chain makes while a sync of `seconds` runs: track's interval is max(5 s, age / 4), at most 30 s. */
export function pollsFor(seconds: number): number {
  let age = 0;
  let polls = 0;
  while (age < seconds) {
    age += Math.min(30, Math.max(5, age / 4));
    polls += 1;
  }
  return polls;
}

/**
 * One push through the functions. Track polls come in two kinds, measured apart: those that write (each
 * chain's first poll, which records what it first sees, the app still at its old revision, and the poll
 * after a tick has ended every sync, which writes each app's end, the summary and the rollout's end), and
 * one that finds nothing new (a second poll before the tick), as most polls of a real sync do.
 */
async function pushThrough(
  service: number,
  measured: boolean,
): Promise<{ apps: number; polls: number; idlePolls: number }> {
  const commit = await world.commit(service);
  await world.command('reset');
  phase = measured ? 'push' : undefined;
  const handler = webhookHandler(async () => world.app);
  const t = tally();
  if (t !== undefined) t.httpApiRequests += 1;
  await invoke('webhook', () => handler(signedPush(service, { repoUrl: world.repoURL, ...commit })), false);
  let polls = 0;
  let idlePolls = 0;
  let appCount = 0;
  const seen = new Set<string>();
  const poll = async (chains: readonly TrackMessage[], as: Phase) => {
    if (measured) phase = as;
    for (let i = 0; i < chains.length; i += 10) {
      const batch = chains.slice(i, i + 10);
      await invoke('track', () => Promise.all(batch.map((m) => world.app.track({ ...m, attempt: 0 }))), true);
    }
    if (measured) phase = 'push';
  };
  for (let round = 0; round < 100; round++) {
    const items = world.queues.push.takeAll();
    for (let i = 0; i < items.length; i += 5) {
      const batch = items.slice(i, i + 5);
      await invoke('fanout', () => Promise.all(batch.map((m) => world.app.fanout(m))), true);
    }
    // A chain's first poll writes what it sees first (the app still at its old revision), the second
    // finds nothing new; both before the tick, which then ends every sync for the polls after.
    const first = world.queues.track.takeAll();
    const unseen = first.filter((m) => !seen.has(m.cluster));
    for (const m of unseen) seen.add(m.cluster);
    polls += unseen.length;
    await poll(unseen, 'track');
    const again = world.queues.track.takeAll();
    idlePolls += again.length;
    await poll(again, 'idle');
    await world.command('tick');
    const chains = [...first.filter((m) => !unseen.includes(m)), ...world.queues.track.takeAll()];
    polls += chains.length;
    await poll(chains, 'track');
    if (items.length === 0 && chains.length === 0 && unseen.length === 0) {
      appCount = ((await rolloutSummary<{ apps?: unknown[] }>(world.app, commit.after)).apps ?? []).length;
      break;
    }
  }
  phase = undefined;
  return { apps: appCount, polls, idlePolls };
}

/**
 * A summary item's size (what each of its updates is billed at, per KB) and the parts of it that grow with
 * the fleet: the per-cluster views, decision counts and planned clusters, and the stored push event.
 */
function summaryParts(item: Record<string, unknown>): { bytes: number; parts: Record<string, number> } {
  const parts: Record<string, number> = {};
  for (const name of ['views', 'decisionsByCluster', 'clusters', 'pushEvent'])
    if (item[name] !== undefined) parts[name] = itemSize({ [name]: item[name] });
  return { bytes: itemSize(item), parts };
}

/** Each summary item seen by a scan of the table (`storedItems`), by partition key. */
const summarySizes: Map<string, { bytes: number; parts: Record<string, number> }> = new Map();

/** DynamoDB's storage overhead per item, and again per index entry (its storage pricing). */
const ITEM_OVERHEAD_BYTES = 100;

/**
 * Every stored item by key: the bytes it takes (its size and overhead, once more in each ALL index it has keys
 * of, and its keys in the keys-only one) and its expiry (epoch seconds; undefined: it never expires).
 */
async function storedItems(): Promise<Map<string, { bytes: number; expiresAt?: number }>> {
  const client = new DynamoDBClient({
    endpoint: world.dynamodb.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  const items = new Map<string, { bytes: number; expiresAt?: number }>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: world.dynamodb.tableName,
        ...(start === undefined ? {} : { ExclusiveStartKey: start as never }),
      }),
    );
    for (const item of (page.Items ?? []) as Record<string, { S?: string; N?: string }>[]) {
      const bytes =
        (itemSize(item) + ITEM_OVERHEAD_BYTES) * (1 + count(item)) +
        (inKeysOnly(item) ? keysOnlyBytes(item) : 0);
      if (item.sk?.S === SUMMARY_SK) summarySizes.set(`${item.pk?.S}`, summaryParts(item));
      const expiresAt = item.expiresAt?.N === undefined ? undefined : Number(item.expiresAt.N);
      items.set(`${item.pk?.S}\n${item.sk?.S}`, { bytes, ...(expiresAt === undefined ? {} : { expiresAt }) });
    }
    start = page.LastEvaluatedKey as Record<string, unknown> | undefined;
  } while (start !== undefined);
  client.destroy();
  return items;
}

/**
 * What the items a push added keep stored: byte-days (bytes × the days each lives till its expiry), and the
 * bytes of those that never expire. At a steady rate, pushes a day × byte-days is what the table holds.
 */
function addedStorage(
  before: ReadonlyMap<string, { bytes: number }>,
  after: ReadonlyMap<string, { bytes: number; expiresAt?: number }>,
) {
  const now = Date.now() / 1000;
  let byteDays = 0;
  let neverExpiring = 0;
  for (const [key, item] of after) {
    // The sweep's list of open rollouts: deleted by the sweep once the rollout has ended, not kept.
    if (before.has(key) || key.startsWith(`${OPEN_PK}\n`)) continue;
    if (item.expiresAt === undefined) neverExpiring += item.bytes;
    else byteDays += item.bytes * Math.max(0, (item.expiresAt - now) / 86_400);
  }
  return { byteDays, neverExpiring };
}

try {
  await pushThrough(0, false); // warm-up: first Git reads, cold caches (not what a month of pushes sees)
  const storedBefore = await storedItems();
  const summariesBefore = new Set(summarySizes.keys());
  const measured = await pushThrough(1, true);
  const stored = addedStorage(storedBefore, await storedItems());
  const summary = [...summarySizes].find(([pk]) => !summariesBefore.has(pk))?.[1];
  // Here a tick ends every sync; a real one takes a while, and track polls the chain the whole time.
  const pollsPerChain = pollsFor(Number(values['sync-seconds'] ?? 60));
  // Of a chain's polls, two write (measured: its first look and its end), the rest find nothing new (the
  // measured idle poll). A sync whose state changes more often in between writes a little more.
  const simulatedPolls = Math.max(1, measured.polls);
  const writingPolls = Math.min(2, pollsPerChain);
  const trackScale = (clusters * writingPolls) / simulatedPolls;
  const idleScale = (clusters * (pollsPerChain - writingPolls)) / Math.max(1, measured.idlePolls);
  const push = withScaled(withScaled(tallies.push, tallies.track, trackScale), tallies.idle, idleScale);
  // The first pass writes every finding once; what a month of passes costs is the steady pass after it.
  phase = undefined;
  await invoke('reconcile', () => world.app.reconcile({ timeBudgetMs: 540_000 }), false);
  phase = 'reconcile';
  await invoke('reconcile', () => world.app.reconcile({ timeBudgetMs: 540_000 }), false);
  phase = 'sweep';
  await invoke('reconcile', () => world.app.reconcile({ sweepOnly: true }), false);
  phase = undefined;
  const usage = (t: Tally): Usage & { dynamoRequests: number } => ({
    functions: t.functions as Record<string, FunctionUse>,
    dynamoReadUnits: t.dynamoReadUnits,
    dynamoWriteUnits: t.dynamoWriteUnits,
    dynamoRequests: t.dynamoRequests,
    sqsRequests: t.sqsRequests,
    httpApiRequests: t.httpApiRequests,
    logBytes: t.logBytes,
  });
  process.stdout.write(
    `${JSON.stringify({
      refreshedApps: measured.apps,
      simulatedPolls,
      idlePolls: measured.idlePolls,
      pollsPerChain,
      trackScale,
      idleScale,
      push: usage(push),
      pushWriteUnitsBy: push.writeUnitsBy,
      reconcile: usage(tallies.reconcile),
      sweep: usage(tallies.sweep),
      customMetrics: metricNames.size,
      storedByteDays: stored.byteDays,
      storedNeverExpiringBytes: stored.neverExpiring,
      ...(summary === undefined ? {} : { summary }),
    })}\n`,
  );
} finally {
  await world.close();
}
process.exit(0);
