import { countDynamoRequests } from './dynamo-counter.js';
import { pushMessage } from './push-message.js';
import { startBenchWorld } from './world.js';

// `npx tsx bench/dynamo-requests.ts [clusters] [apps] [--each]`: the DynamoDB requests the orchestrator
// makes per fan-out work item and per track poll of one cluster, by table action, in the fleet child's run
// (a push with unknown files, every work item alone, two controller ticks, one poll of every chain). Counts
// what goes through the store's DynamoDBClient in this process (the doubles run in a child process).
// `--each` prints every request (action, item key, expression) as it goes out.
const each = process.argv.includes('--each');
const counter = countDynamoRequests(
  each ? (action, input) => process.stdout.write(`  ${action} ${describe(input)}\n`) : undefined,
);

const [clusters = 5, apps = 100] = process.argv
  .slice(2)
  .filter((a) => !a.startsWith('--'))
  .map(Number);
const world = await startBenchWorld({ clusters, applications: apps, latencyMs: 0, realistic: false });

/** The item a request is about, with commit SHAs shortened, and its expression's start. */
function describe(input: Record<string, unknown>): string {
  const attribute = (map: unknown, name: string) =>
    String((map as Record<string, { S?: string }> | undefined)?.[name]?.S ?? '');
  const keyed = (input.Key ?? input.Item) as unknown;
  const values = input.ExpressionAttributeValues;
  const pk = attribute(keyed, 'pk') || attribute(values, ':pk');
  const sk = attribute(keyed, 'sk') || attribute(values, ':prefix');
  const expression = String(input.UpdateExpression ?? input.ConditionExpression ?? '');
  return `${pk} ${sk} ${expression.slice(0, 50)}`.replace(/[0-9a-f]{40}/g, '<sha>');
}

const take = () => counter.take();
const total = (byAction: Record<string, number>) => Object.values(byAction).reduce((a, b) => a + b, 0);
const per = (byAction: Record<string, number>, n: number) =>
  Object.fromEntries(Object.entries(byAction).map(([k, v]) => [k, Math.round((v / n) * 10) / 10]));

try {
  for (let run = 0; run < 2; run++) {
    const commit = await world.commit(run);
    await world.command('reset');
    take();
    await world.app.fanout(pushMessage(world.repoURL, commit, false));
    const plan = take();
    const items = world.queues.push.takeAll();
    if (each) process.stdout.write('--- work items\n');
    for (const item of items) await world.app.fanout(item);
    const work = take();
    await world.command('tick');
    await world.command('tick');
    take();
    const chains = world.queues.track.takeAll();
    if (each) process.stdout.write('--- polls\n');
    await Promise.all(chains.map((m) => world.app.track({ type: 'track', cluster: m.cluster, attempt: 0 })));
    const poll = take();
    for (let i = 0; i < 5 && world.queues.track.depth > 0; i++) {
      await world.command('tick');
      await Promise.all(
        world.queues.track
          .takeAll()
          .map((m) => world.app.track({ type: 'track', cluster: m.cluster, attempt: 0 })),
      );
    }
    // Run 0 is the warm-up, as in the fleet child (first Git reads; the same requests otherwise).
    if (run === 0) continue;
    const line = (name: string, byAction: Record<string, number>, n: number) =>
      process.stdout.write(`${name}: ${total(byAction) / n} requests ${JSON.stringify(per(byAction, n))}\n`);
    process.stdout.write(`${clusters} clusters, ${apps} apps\n`);
    line('plan (one push)', plan, 1);
    line(`per work item (${items.length})`, work, items.length);
    line(`per track poll of one cluster (${chains.length})`, poll, chains.length);
  }
} finally {
  await world.close();
}
process.exit(0);
