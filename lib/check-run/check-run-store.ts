import type { FeedbackEntry } from '../feedback/model.js';

/** What the orchestrator keeps of a commit's check run: GitHub's id for it and what it shows. */
export interface CheckRunRecord extends FeedbackEntry {
  readonly kind: 'check-run';
  /** GitHub's id, once the check run exists. */
  readonly id?: number;
  /** The hash of what was last posted (or is being posted now). */
  readonly posted?: string;
}

/**
 * The claims that keep one check run per commit and one post per change (lib/store/check-runs.ts): only
 * the caller that wins `claimCreate` creates; only one that wins `claimUpdate` with a new view updates.
 */
export interface CheckRunStore {
  read(sha: string): Promise<CheckRunRecord | undefined>;
  /** True when this caller creates the check run: none exists and no other caller is creating it now. */
  claimCreate(sha: string, posted: string, rank: number): Promise<boolean>;
  /** The check run exists: its id and what it shows. False when another caller recorded one first. */
  created(sha: string, id: number, posted: string, state: string): Promise<boolean>;
  /** True when this caller may update to `posted`: it differs from what is shown and is not an older view. */
  claimUpdate(sha: string, posted: string, rank: number): Promise<boolean>;
  /** The update went through: the check run shows `state` now. */
  confirm(sha: string, posted: string, state: string): Promise<void>;
  /** The host refused `posted`: the claim is forgotten (the next notice tries again), the error kept. */
  release(sha: string, posted: string, error: string): Promise<void>;
}
