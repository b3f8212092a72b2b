import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** DynamoDB requests by table action, counted as they go through any DynamoDBClient of this process. */
export interface DynamoCounter {
  /** The counts since the last `take`, by action (`UpdateItem`, ...), and a fresh start. */
  take(): Record<string, number>;
}

/**
 * Counts every request the store's DynamoDBClient sends from now on (the doubles run in a child process, so
 * only the orchestrator's count). `each` sees every request's action and input as it goes out.
 */
export function countDynamoRequests(
  each?: (action: string, input: Record<string, unknown>) => void,
): DynamoCounter {
  const counts = new Map<string, number>();
  const send = DynamoDBClient.prototype.send;
  DynamoDBClient.prototype.send = function (this: DynamoDBClient, ...args: Parameters<typeof send>) {
    const action = args[0].constructor.name.replace(/Command$/, '');
    counts.set(action, (counts.get(action) ?? 0) + 1);
    each?.(action, args[0].input as Record<string, unknown>);
    return send.apply(this, args);
  } as typeof send;
  return {
    take() {
      const taken = Object.fromEntries([...counts].sort());
      counts.clear();
      return taken;
    },
  };
}
