import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { localDynamoClient } from '../infra/local/dynamodb.js';
import { startLocalStack } from '../infra/local/stack.js';
import { type BenchOptions, type Metric, percentiles } from './report.js';

const run = promisify(execFile);

/**
 * Issue 11's load row: signed deliveries (10% redeliveries) from a second process against the local stack
 * over HTTP. The fan-out consumer is stopped, so the push queue's depth is what was enqueued; the table's
 * delivery items are what was recorded: both must equal the distinct deliveries.
 */
export async function benchLoad(options: BenchOptions): Promise<Metric[]> {
  const stack = await startLocalStack({ env: { PORT: '0', LOG_LEVEL: 'SILENT' }, schedule: false });
  try {
    const queues = stack.queues;
    if (queues === undefined) throw new Error('the load bench needs the in-process queues');
    await queues.push.stop();
    const count = options.quick ? 200 : 1000;
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'bench/load-client.ts',
        '--url',
        `${stack.url}/webhooks/github`,
        '--secret',
        stack.config.webhookSecrets.github[0] ?? '',
        '--count',
        String(count),
        '--concurrency',
        '10',
      ],
      { env: { ...process.env, NODE_OPTIONS: '' }, maxBuffer: 16 * 1024 * 1024 },
    );
    const result = JSON.parse(stdout) as {
      statuses: Record<string, number>;
      samples: number[];
      distinct: number;
    };
    const ok = Object.entries(result.statuses).reduce(
      (n, [status, c]) => n + (status.startsWith('2') ? c : 0),
      0,
    );
    const dynamo = localDynamoClient(stack.dynamodbEndpoint);
    let recorded = 0;
    let start: Record<string, never> | undefined;
    do {
      const page = await dynamo.send(
        new ScanCommand({
          TableName: stack.config.tableName,
          // Recorded and handed to the queue: state `enqueued` (items from before states have none).
          FilterExpression: 'begins_with(pk, :p) AND (attribute_not_exists(#state) OR #state = :enqueued)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':p': { S: 'DELIVERY#github#' }, ':enqueued': { S: 'enqueued' } },
          ...(start === undefined ? {} : { ExclusiveStartKey: start }),
        }),
      );
      recorded += page.Count ?? 0;
      start = page.LastEvaluatedKey as Record<string, never> | undefined;
    } while (start !== undefined);
    dynamo.destroy();
    const S = `load, ${count} deliveries`;
    return [
      { scenario: S, metric: 'answered 2xx', value: ok, unit: 'deliveries', target: { min: count } },
      {
        scenario: S,
        metric: `delivery items recorded (of ${result.distinct} distinct)`,
        value: recorded,
        unit: 'items',
      },
      {
        scenario: S,
        metric: `pushes enqueued (of ${result.distinct} distinct)`,
        value: queues.push.depth,
        unit: 'messages',
      },
      {
        scenario: S,
        metric: 'distinct deliveries not recorded or enqueued exactly once',
        value: Math.abs(recorded - result.distinct) + Math.abs(queues.push.depth - result.distinct),
        unit: 'items',
        target: { max: 0 },
      },
      ...percentiles(S, 'answer time (10 at a time)', result.samples, 'ms'),
    ];
  } finally {
    await stack.close();
  }
}
