import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { awsRequestHandler } from '../lib/aws/http-handler.js';
import { documentClient, UpdateCommand } from '../lib/store/document-client.js';
import { createTableRef } from '../lib/store/dynamo.js';

// `npx tsx bench/dynamo-request-cpu.ts [requests]`: the SDK's client-side CPU per DynamoDB request, the
// store's UpdateItem against a loopback server in a child process (so its CPU is not counted) that answers
// every request with a small item. Compares the store's client (cacheMiddleware) with the same commands
// over a client without it and, when it is installed, lib-dynamodb's document client.

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
  await main(Number(process.argv[2] ?? 3000));
}

async function main(requests: number): Promise<void> {
  const server = fork(new URL(import.meta.url).pathname, ['--serve'], { execArgv: process.execArgv });
  const [port] = (await once(server, 'message')) as [number];
  const endpoint = `http://127.0.0.1:${port}`;
  const plain = new DynamoDBClient({
    region: 'local',
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    requestHandler: awsRequestHandler({ maxSockets: 256 }),
  });
  const store = createTableRef({ tableName: 't', region: 'local', endpoint });
  const send = {
    'store client (cacheMiddleware)': store.doc.send.bind(store.doc),
    ...(process.env.ONLY === undefined
      ? { 'store commands, client without cacheMiddleware': documentClient(plain).send }
      : {}),
  } as Record<string, (command: UpdateCommand) => Promise<unknown>>;
  const documentPackage = '@aws-sdk/lib-dynamodb';
  if (process.env.ONLY === undefined)
    try {
      const lib = await import(documentPackage);
      const doc = lib.DynamoDBDocumentClient.from(plain, {
        marshallOptions: { removeUndefinedValues: true },
      });
      send['lib-dynamodb document client'] = (command) => doc.send(new lib.UpdateCommand(command.input));
    } catch {
      process.stdout.write('(lib-dynamodb not installed: its row is left out)\n');
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
      if (process.env.VERBOSE) process.stdout.write(`  round ${round + 1}, ${name}: ${ms.toFixed(3)} ms\n`);
    }
  }
  for (const [name, ms] of best) {
    process.stdout.write(`${name}: ${ms.toFixed(3)} ms CPU per UpdateItem (best of 3 × ${requests})\n`);
  }
  store.client.destroy();
  plain.destroy();
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
