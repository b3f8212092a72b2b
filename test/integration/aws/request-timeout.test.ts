import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsRequestHandler } from '../../../lib/aws/http-handler.js';
import { createSecretsManagerApi } from '../../../lib/aws/secrets-manager.js';
import { GetCommand } from '../../../lib/store/document-client.js';
import { createTableRef } from '../../../lib/store/dynamo.js';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const http = { requestTimeoutMs: 300 };

/** Rejects, or fails the test after `ms` (a generous bound: the point is that the call ends at all). */
async function endsWithin<T>(call: Promise<T>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    call.then(
      () => ({ settled: 'resolved' as const }),
      (error: unknown) => ({ settled: 'rejected' as const, error }),
    ),
    new Promise<{ settled: 'hung' }>((resolve) => {
      timer = setTimeout(() => resolve({ settled: 'hung' }), ms);
    }),
  ]);
  clearTimeout(timer);
  expect(outcome.settled).toBe('rejected');
  return 'error' in outcome ? outcome.error : undefined;
}

describe('AWS SDK clients against an endpoint that accepts and never answers', () => {
  let server: Server;
  let endpoint: string;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    server = createServer(() => undefined); // reads the request, never answers
    server.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('ends a DynamoDB call with a timeout error', async () => {
    const table = createTableRef({ tableName: 't', region: 'local', endpoint, http });
    const error = await endsWithin(
      table.doc.send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } })),
      10_000,
    );
    expect((error as Error).name).toBe('TimeoutError');
    table.client.destroy();
  });

  it('ends an SQS call with a timeout error', async () => {
    const sqs = new SQSClient({
      region: 'local',
      endpoint,
      credentials,
      requestHandler: awsRequestHandler(http),
    });
    const error = await endsWithin(
      sqs.send(new SendMessageCommand({ QueueUrl: `${endpoint}/000000000000/q`, MessageBody: 'x' })),
      10_000,
    );
    expect((error as Error).name).toBe('TimeoutError');
    sqs.destroy();
  });

  it('ends a Secrets Manager call with a timeout error', async () => {
    const api = createSecretsManagerApi({ endpoint, http, credentials });
    const error = await endsWithin(api.getSecretValue({ secretId: 's', region: 'local' }), 10_000);
    expect((error as { awsCode?: string }).awsCode).toBe('TimeoutError');
    api.destroy();
  });
});
