import { describe, expect, it } from 'vitest';
import {
  billedMs,
  costOf,
  monthlyCost,
  PRICES,
  type Standing,
  type Usage,
} from '../../../bench/cost-model.js';

const none: Usage = {
  functions: {},
  dynamoReadUnits: 0,
  dynamoWriteUnits: 0,
  sqsRequests: 0,
  httpApiRequests: 0,
  logBytes: 0,
};

describe('the cost model', () => {
  it('prices Lambda by requests and GB-seconds at the configured memory', () => {
    const cost = costOf({
      ...none,
      functions: { fanout: { invocations: 1_000_000, billedMs: 1_000_000 * 1000, memoryMb: 1024 } },
    });
    // 1M requests ($0.20) + 1M GB-seconds at 1 GB.
    expect(cost.lambda).toBeCloseTo(0.2 + 1_000_000 * PRICES.lambdaGbSecond, 6);
    expect(cost.total).toBeCloseTo(cost.lambda, 9);
  });

  it('prices DynamoDB units, SQS and API requests and log gigabytes', () => {
    const cost = costOf({
      ...none,
      dynamoReadUnits: 1e6,
      dynamoWriteUnits: 1e6,
      sqsRequests: 1e6,
      httpApiRequests: 1e6,
      logBytes: 1024 ** 3,
    });
    expect(cost.dynamodb).toBeCloseTo(0.125 + 0.625, 9);
    expect(cost.sqs).toBeCloseTo(0.4, 9);
    expect(cost.apiGateway).toBeCloseTo(1, 9);
    expect(cost.cloudwatchLogs).toBeCloseTo(0.53, 9);
  });

  it('adds the standing cost once a month and the push cost per push', () => {
    const standing: Standing = {
      reconcilePass: { ...none, sqsRequests: 10 },
      reconcilePassesPerMonth: 8640,
      sweepPass: none,
      sweepPassesPerMonth: 43200,
      idlePollRequestsPerMonth: 1e6,
      customMetrics: 10,
      alarms: 14,
      storedGb: 2,
    };
    const month = monthlyCost({ ...none, sqsRequests: 100 }, 50, standing);
    expect(month.pushes).toBe(1500);
    expect(month.pushCost).toBeCloseTo(1500 * 100 * PRICES.sqsRequest, 9);
    expect(month.standingCost).toBeCloseTo(8640 * 10 * 0.4e-6 + 0.4 + 3 + 1.4 + 0.5, 9);
    expect(month.total).toBeCloseTo(month.pushCost + month.standingCost, 9);
  });

  it('bills at least the wall time, and CPU-bound work at the function’s share of a vCPU', () => {
    expect(billedMs(100.2, 10, 1024)).toBe(101);
    // 1024 MB is 1024/1769 of a vCPU: 100 ms of CPU here takes ~173 ms there.
    expect(billedMs(50, 100, 1024)).toBe(Math.ceil(100 / (1024 / 1769)));
  });
});
