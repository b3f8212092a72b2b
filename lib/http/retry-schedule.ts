/**
 * One retry schedule for every outbound call that may be tried again (a Git host's API, the GitHub App's
 * token calls, Slack): how many attempts, the pause before each (linear backoff with jitter, or the wait
 * the other side asked for with `Retry-After`), and the most it may wait in all. What is retryable is the
 * caller's to say; when to stop is this module's.
 */
export interface RetrySchedule {
  readonly maxAttempts: number;
  /**
   * Longest total wait (`Retry-After` included) before giving up: a wait that would pass it gives up at
   * once, so a call never holds its caller longer than its attempts plus this.
   */
  readonly maxWaitMs: number;
  /** Pause before retrying when the other side named none: this times the attempt number, jittered. */
  readonly backoffMs: number;
  /**
   * The fraction of each backoff drawn at random (0 to 1; absent: 0, no jitter), taken off the pause so
   * it never grows: 0.2 waits between 80 % and 100 % of the backoff. A `Retry-After` is kept as given.
   */
  readonly jitter?: number;
  /** The random source of the jitter (tests pin it). */
  readonly random?: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

export const sleepFor = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What one attempt came to: `done` (return it), or `again` (a failure worth another attempt, after
 * `retryAfterMs` when the other side asked for a wait); `giveUp` is what the call comes to when the
 * schedule has no attempt or wait left (the last answer, or a throw), `release` what is let go when it
 * is tried again (a response body). A failure not worth retrying is thrown by the attempt itself.
 */
export type AttemptOutcome<T> =
  | { readonly done: T }
  | {
      readonly again: {
        readonly retryAfterMs?: number | undefined;
        readonly giveUp: () => T;
        readonly release?: () => Promise<unknown>;
      };
    };

/** Runs `attempt` (numbered from 1) until it is done, or gives up as the schedule says. */
export async function withRetries<T>(
  schedule: RetrySchedule,
  attempt: (n: number) => Promise<AttemptOutcome<T>>,
): Promise<T> {
  let waited = 0;
  for (let n = 1; ; n++) {
    const outcome = await attempt(n);
    if ('done' in outcome) return outcome.done;
    const { retryAfterMs, giveUp, release } = outcome.again;
    if (n >= schedule.maxAttempts) return giveUp();
    const wait = retryAfterMs ?? backoff(schedule, n);
    if (waited + wait > schedule.maxWaitMs) return giveUp();
    await release?.().catch(() => undefined);
    await schedule.sleep(wait);
    waited += wait;
  }
}

/** The pause after failed attempt `n` when the other side named none. */
export function backoff(schedule: RetrySchedule, n: number): number {
  const base = schedule.backoffMs * n;
  const jitter = Math.min(1, Math.max(0, schedule.jitter ?? 0));
  if (jitter === 0) return base;
  const random = (schedule.random ?? Math.random)();
  return Math.round(base * (1 - jitter * random));
}

/** `Retry-After` in milliseconds: seconds or an HTTP date; absent or unreadable: undefined (backoff). */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
