/** Remembers each login's `state` once it came back, so the same callback cannot be played twice. */
export interface LoginStates {
  /** True the first time a state is seen; false for a replay. Kept until `expiresAt`. */
  consume(state: string, expiresAt: Date): Promise<boolean>;
}

/** One process only (tests, a single local stack): what the DynamoDB store does across Lambda instances. */
export function memoryLoginStates(now: () => Date = () => new Date()): LoginStates {
  const seen = new Map<string, number>();
  return {
    async consume(state, expiresAt) {
      const at = now().getTime();
      for (const [key, until] of seen) if (until < at) seen.delete(key);
      if (seen.has(state)) return false;
      seen.set(state, expiresAt.getTime());
      return true;
    },
  };
}
