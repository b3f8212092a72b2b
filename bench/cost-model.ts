/**
 * What the orchestrator costs to run, from measured counts (bench/cost-child.ts) and AWS list prices.
 * Pure: no I/O, so the arithmetic is unit-tested (test/unit/bench/cost-model.test.ts).
 */

/**
 * AWS list prices, us-east-1, on-demand, no free tier (a conservative bill). As published on the AWS pricing
 * pages after DynamoDB's on-demand reduction of November 2024; this machine cannot reach aws.amazon.com,
 * so they were not re-read on the date below: check them before relying on a figure.
 */
export const PRICES = {
  asOf: '2026-12-02 (list prices as last published; not re-read online from this machine)',
  region: 'us-east-1',
  /** Lambda arm64, per GB-second of billed duration. */
  lambdaGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  /** DynamoDB on-demand. */
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  dynamoGbMonth: 0.25,
  /** SQS standard queue, per request (each 64 KB chunk of a request is one). */
  sqsRequest: 0.4 / 1e6,
  /** API Gateway HTTP API, per request (first 300 million a month). */
  httpApiRequest: 1.0 / 1e6,
  /** serverless.yml's `schedule` events are EventBridge rules: AWS does not charge for scheduled rule events. */
  scheduledEvent: 0,
  /** CloudWatch: log ingestion and storage, custom metrics (first 10,000), standard alarms. */
  logsIngestGb: 0.5,
  logsStoreGbMonth: 0.03,
  customMetricMonth: 0.3,
  alarmMonth: 0.1,
} as const;

export type Prices = typeof PRICES;

/** One Lambda function's share of a unit of work (a push, a reconcile pass, a sweep). */
export interface FunctionUse {
  readonly invocations: number;
  /** Billed duration in ms, summed over the invocations. */
  readonly billedMs: number;
  readonly memoryMb: number;
}

/** Everything one unit of work uses, as measured. */
export interface Usage {
  readonly functions: Readonly<Record<string, FunctionUse>>;
  readonly dynamoReadUnits: number;
  readonly dynamoWriteUnits: number;
  readonly sqsRequests: number;
  readonly httpApiRequests: number;
  readonly logBytes: number;
}

export interface Cost {
  readonly lambda: number;
  readonly dynamodb: number;
  readonly sqs: number;
  readonly apiGateway: number;
  readonly cloudwatchLogs: number;
  readonly total: number;
}

export function costOf(usage: Usage, prices: Prices = PRICES): Cost {
  let lambda = 0;
  for (const use of Object.values(usage.functions)) {
    lambda += use.invocations * prices.lambdaRequest;
    lambda += (use.billedMs / 1000) * (use.memoryMb / 1024) * prices.lambdaGbSecond;
  }
  const dynamodb =
    usage.dynamoReadUnits * prices.dynamoReadUnit + usage.dynamoWriteUnits * prices.dynamoWriteUnit;
  const sqs = usage.sqsRequests * prices.sqsRequest;
  const apiGateway = usage.httpApiRequests * prices.httpApiRequest;
  // Logs are kept 30 days (serverless.yml logRetentionInDays): one month's ingestion is stored about a month.
  const gb = usage.logBytes / 1024 ** 3;
  const cloudwatchLogs = gb * (prices.logsIngestGb + prices.logsStoreGbMonth);
  return {
    lambda,
    dynamodb,
    sqs,
    apiGateway,
    cloudwatchLogs,
    total: lambda + dynamodb + sqs + apiGateway + cloudwatchLogs,
  };
}

/** What runs whatever the pushes: reconcile and sweep passes, queue polling, metrics, alarms, stored items. */
export interface Standing {
  readonly reconcilePass: Usage;
  readonly reconcilePassesPerMonth: number;
  readonly sweepPass: Usage;
  readonly sweepPassesPerMonth: number;
  /**
   * Lambda's SQS event source polls each queue with long polls whether or not messages arrive (AWS: a few
   * pollers per queue, each a 20 s ReceiveMessage): requests a month across the queues.
   */
  readonly idlePollRequestsPerMonth: number;
  readonly customMetrics: number;
  readonly alarms: number;
  readonly storedGb: number;
}

export interface MonthlyCost {
  readonly perPush: Cost;
  readonly pushes: number;
  readonly pushCost: number;
  readonly standingCost: number;
  readonly total: number;
}

export function monthlyCost(
  perPush: Usage,
  pushesPerDay: number,
  standing: Standing,
  prices: Prices = PRICES,
): MonthlyCost {
  const push = costOf(perPush, prices);
  const pushes = pushesPerDay * 30;
  const standingCost =
    costOf(standing.reconcilePass, prices).total * standing.reconcilePassesPerMonth +
    costOf(standing.sweepPass, prices).total * standing.sweepPassesPerMonth +
    (standing.reconcilePassesPerMonth + standing.sweepPassesPerMonth) * prices.scheduledEvent +
    standing.idlePollRequestsPerMonth * prices.sqsRequest +
    standing.customMetrics * prices.customMetricMonth +
    standing.alarms * prices.alarmMonth +
    standing.storedGb * prices.dynamoGbMonth;
  const pushCost = push.total * pushes;
  return { perPush: push, pushes, pushCost, standingCost, total: pushCost + standingCost };
}

/** Lambda bills wall time; on a 1024 MB function (~0.58 vCPU) CPU-bound work takes longer than it did here. */
export function billedMs(wallMs: number, cpuMs: number, memoryMb: number): number {
  const vcpu = Math.min(2, (memoryMb / 1769) * 1);
  const cpuThere = cpuMs / vcpu;
  // At least the CPU it needs there, at least the wall it waited here; Lambda rounds up to the millisecond.
  return Math.ceil(Math.max(wallMs, cpuThere));
}
