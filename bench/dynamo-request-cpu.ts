import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { awsRequestHandler } from '../lib/aws/http-handler.js';
import { documentClient, UpdateCommand } from '../lib/store/document-client.js';
import { createTableRef } from '../lib/store/dynamo.js';

// `npx tsx bench/dynamo-request-cpu.ts [requests] [--verbose] [--store-only]`: the client-side CPU per
// DynamoDB request of the store's UpdateItem (an app transition: five values, ReturnValues ALL_NEW) against
// a loopback server in a child process (its CPU is not counted) that answers with a six-attribute item.
// Compares the store's client (cacheMiddleware) with the same commands over a client without it and, when
// it is installed, lib-dynamodb's document client (the store's path before). `--verbose`: every round.

const ANSWER = JSON.stringify({
  Attributes: {
    pk: { S: 'ROLLOUT#0123456789abcdef0123456789abcdef01234567' },
    sk: { S: 'APP#prod-eu#argocd/web' },
    state: { S: 'synced' },
    version: { N: '3' },
    updatedAt: { S: '2026-12-01T10:00:00.000Z' },
    expiresAt: { N: '1796000000' },
  },
});

if (process.argv[2] === '--serve') {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(ANSWER);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.(typeof address === 'object' && address !== null ? address.port : 0);
  });
} else {
  await main(Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 3000));
}

async function main(requests: number): Promise<void> {
  const server = fork(new URL(import.meta.url).pathname, ['--serve'], { execArgv: process.execArgv });
  const [port] = (await once(server, 'message')) as [number];
  const endpoint = `http://127.0.0.1:${port}`;
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
  server.kill();
}

/** `count` UpdateItems shaped like an app transition, ten in flight at a time. */
async function burst(send: (command: UpdateCommand) => Promise<unknown>, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await send(
        new UpdateCommand({
          TableName: 't',
          Key: { pk: 'ROLLOUT#0123456789abcdef0123456789abcdef01234567', sk: `APP#prod-eu#argocd/web-${i}` },
          UpdateExpression: 'SET #state = :state, version = :next, updatedAt = :now, expiresAt = :exp',
          ConditionExpression: 'version = :expected',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':state': 'synced',
            ':next': 3,
            ':expected': 2,
            ':now': '2026-12-01T10:00:00.000Z',
            ':exp': 1796000000,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
}
