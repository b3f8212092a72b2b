/** Rollouts not yet ended, with their deadline: what the reconcile sweep finishes when tracking stopped. */
export interface OpenRollouts {
  /** Each open counts (`opens`): a close at the count it read leaves a rollout opened again since. */
  open(sha: string, deadline: string): Promise<void>;
  close(sha: string, opens: number): Promise<void>;
  list(): Promise<readonly { sha: string; deadline: string; opens: number }[]>;
}
