import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { awsRequestHandler } from '../lib/aws/http-handler.js';
import { documentClient, type UpdateCommand } from '../lib/store/document-client.js';
import { createTableRef } from '../lib/store/dynamo.js';
import { burst, storeDouble } from './store-request-cpu.js';

// `npx tsx bench/dynamo-request-cpu.ts [requests] [--verbose] [--store-only]`: the client-side CPU per
// DynamoDB request of the store's UpdateItem (an app transition: five values, ReturnValues ALL_NEW) against
// a loopback server in a child process (its CPU is not counted) that answers with a six-attribute item.
// Compares the store's client (cacheMiddleware) with the same commands over a client without it and, when
// it is installed, lib-dynamodb's document client (the store's path before). `--verbose`: every round.

await main(Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 3000));

async function main(requests: number): Promise<void> {
  const server = await storeDouble();
  const { endpoint } = server;
  // A client as createTableRef built it before (no cacheMiddleware, which lib-dynamodb refuses).
  const clients: DynamoDBClient[] = [];
  const plainClient = () => {
    const client = new DynamoDBClient({
      region: 'local',
      endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      requestHandler: awsRequestHandler({ maxSockets: 256 }),
    });
    clients.push(client);
    return client;
  };
  const store = createTableRef({ tableName: 't', region: 'local', endpoint });
  const plain = plainClient();
  const send: Record<string, (command: UpdateCommand) => Promise<unknown>> = {
    'store client (cacheMiddleware)': store.doc.send,
  };
  // `--store-only`: the store's row alone (for `node --cpu-prof`).
  if (!process.argv.includes('--store-only')) {
    send['store commands, client without cacheMiddleware'] = documentClient(plain).send;
    const documentPackage = '@aws-sdk/lib-dynamodb';
    try {
      const lib = await import(documentPackage);
      const doc = lib.DynamoDBDocumentClient.from(plainClient(), {
        marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
      });
      send['lib-dynamodb document client'] = (command) => doc.send(new lib.UpdateCommand(command.input));
    } catch {
      process.stdout.write('(lib-dynamodb not installed: its row is left out)\n');
    }
  }
  for (const run of Object.values(send)) await burst(run, 500);
  // Three rounds in turn, so a neighbour's load or the JIT favours none of them; the best round counts.
  const best = new Map<string, number>();
  for (let round = 0; round < 3; round++) {
    for (const [name, run] of Object.entries(send)) {
      const before = process.cpuUsage();
      await burst(run, requests);
      const used = process.cpuUsage(before);
      const ms = (used.user + used.system) / 1000 / requests;
      best.set(name, Math.min(best.get(name) ?? Number.POSITIVE_INFINITY, ms));
      if (process.argv.includes('--verbose'))
        process.stdout.write(`  round ${round + 1}, ${name}: ${ms.toFixed(3)} ms\n`);
    }
  }
  for (const [name, ms] of best) {
    process.stdout.write(`${name}: ${ms.toFixed(3)} ms CPU per UpdateItem (best of 3 × ${requests})\n`);
  }
  store.client.destroy();
  for (const client of clients) client.destroy();
  server.stop();
}
