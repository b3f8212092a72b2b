import { SQSClient } from '@aws-sdk/client-sqs';
import { awsRequestHandler } from '../../lib/aws/http-handler.js';
import type { RuntimeOverrides } from '../../lib/composition/runtime.js';
import type { Config } from '../../lib/config.js';
import type { AppSource } from '../../lib/handlers.js';
import { fanoutHandler, trackHandler } from '../../lib/handlers.js';
import type { Logger, Queue } from '../../lib/ports.js';
import type { FanoutMessage, PointerMessage, TrackMessage } from '../../lib/queue/messages.js';
import { MemoryQueue } from './memory-queue.js';
import { type SqsPoller, startSqsPoller } from './sqs-poller.js';

export interface LocalQueues {
  readonly push: MemoryQueue<FanoutMessage>;
  readonly track: MemoryQueue<TrackMessage>;
}

/** Lets a test put a fault-injecting wrapper between the functions and an in-process queue. */
export type QueueWrapper = <M>(name: 'push' | 'track', queue: Queue<M>) => Queue<M>;

const CONSUMERS = {
  push: { batchSize: 5, visibilityTimeoutMs: 120_000, maxReceiveCount: 5 },
  track: { batchSize: 10, visibilityTimeoutMs: 60_000, maxReceiveCount: 5 },
} as const;

/**
 * The stack's queues: in-process ones by default, or, with both queue URLs set (and `SQS_ENDPOINT` for an
 * SQS-compatible server), the real queues, which the runtime sends to and these pollers long-poll.
 */
export function localQueues(config: Config, wrap: QueueWrapper | undefined) {
  if (config.queueUrl !== undefined && config.trackQueueUrl !== undefined) {
    return sqsQueues(config, config.queueUrl, config.trackQueueUrl);
  }
  const queues: LocalQueues = {
    push: new MemoryQueue<FanoutMessage>('fanout'),
    track: new MemoryQueue<TrackMessage>('track'),
  };
  const overrides: Pick<RuntimeOverrides, 'pushQueue' | 'trackQueue'> = {
    pushQueue: wrap ? wrap<FanoutMessage | PointerMessage>('push', queues.push) : queues.push,
    trackQueue: wrap ? wrap<TrackMessage | PointerMessage>('track', queues.track) : queues.track,
  };
  return {
    queues,
    overrides,
    start(source: AppSource) {
      queues.push.start(fanoutHandler(source), CONSUMERS.push);
      queues.track.start(trackHandler(source), CONSUMERS.track);
    },
    // Let the batches in flight finish before the stores and servers they use go away.
    stop: async () => {
      await Promise.all([queues.push.stop(), queues.track.stop()]);
    },
  };
}

function sqsQueues(config: Config, pushUrl: string, trackUrl: string) {
  // Long polls last up to 20 s: this client's timeout must outlast them.
  const client = new SQSClient({
    region: config.region,
    requestHandler: awsRequestHandler({ requestTimeoutMs: 30_000 }),
    ...(config.sqsEndpoint === undefined ? {} : { endpoint: config.sqsEndpoint }),
  });
  let pollers: SqsPoller[] = [];
  return {
    queues: undefined,
    overrides: {},
    start(source: AppSource, logger?: Logger) {
      const log = logger ?? noLogger;
      const poll = (
        queueUrl: string,
        handler: ReturnType<typeof fanoutHandler>,
        c: (typeof CONSUMERS)['push' | 'track'],
      ) =>
        startSqsPoller({
          client,
          queueUrl,
          handler,
          batchSize: c.batchSize,
          visibilityTimeoutSeconds: c.visibilityTimeoutMs / 1000,
          logger: log,
        });
      pollers = [
        poll(pushUrl, fanoutHandler(source), CONSUMERS.push),
        poll(trackUrl, trackHandler(source), CONSUMERS.track),
      ];
    },
    stop: async () => {
      await Promise.all(pollers.map((p) => p.stop()));
      client.destroy();
    },
  };
}

const noLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => noLogger,
};
