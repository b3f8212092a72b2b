import type { PushEvent } from '../../webhook/push-event.js';
import type { AppRecord, AppTarget, DecisionRecord } from '../app-model.js';
import type { RolloutSummary } from '../rollout-model.js';
import type { AppStateWriter, ViewedApp } from './app-state.js';
import type { HeldLease } from './cluster-leases.js';
import type { DecisionTally } from './cluster-progress.js';

export type NewRollout = Omit<RolloutSummary, 'status' | 'counts' | 'decisions' | 'refs' | 'finishedAt'> & {
  /** The push without its file list: what a release work item matches the held apps against later. */
  readonly pushEvent?: StoredPushEvent;
};

export type StoredPushEvent = Omit<PushEvent, 'changedFiles'>;

/** What every app record of a rollout repeats, so history entries stand on their own. */
export type RolloutMeta = Pick<RolloutSummary, 'sha' | 'repo' | 'ref' | 'trigger' | 'receivedAt'>;

/** Written by fan-out: the rollout, its decisions, and one claim + record per refreshed app. */
export interface RolloutWriter {
  /** Creates the rollout for this commit, or adds `ref` to the one that exists (and moves its deadline on). */
  start(rollout: NewRollout): Promise<'created' | 'exists'>;
  /**
   * Records one work item's decisions under `batch` (its cluster, delivery and attempt: a redelivery
   * overwrites, never appends) and re-derives the rollout's decision counts, one per object.
   */
  recordDecisions(
    sha: string,
    batch: string,
    decisions: readonly DecisionRecord[],
    options?: {
      /** The work item's new app records still to write: flushed now, the decisions in their last batch. */
      readonly pending?: NewAppRecords | undefined;
      /** The counts are returned, not written: `recordCluster` writes them with the cluster's progress. */
      readonly withProgress?: boolean;
      /**
       * No other batch of the cluster can exist (the first holder of its lease wrote this one): the counts
       * are this batch's, with no read of the cluster's decisions.
       */
      readonly onlyBatch?: boolean;
      /**
       * The cluster's lease, released in the last request of these writes (then `released()` is called)
       * when the holder has nothing left to write under it: one request less than a release of its own.
       */
      readonly lease?: HeldLease | undefined;
    },
  ): Promise<DecisionTally | undefined>;
  /** Writes an app's record unless it holds a later state already (a redelivery never moves it back). */
  recordApp(meta: RolloutMeta, record: AppRecord): Promise<void>;
  /**
   * Takes the right to refresh one app for this push: a conditional write at the version read before
   * (none: the item must not exist). Returns the new version, or undefined when another delivery won.
   */
  claimApp(
    meta: RolloutMeta,
    claim: AppClaim,
    expectedVersion: number | undefined,
  ): Promise<number | undefined>;
}

/** What a claim writes: the app's record as fan-out starts on it. */
export interface AppClaim extends AppRecord {
  readonly claimedAt: string;
  /** The revision the app was at when it was claimed (a third revision later means a newer push). */
  readonly fromRevision?: string;
}

/** The record writes of one app's refresh (the store's, or a buffer's for apps no record exists of yet). */
export type AppLedger = Pick<RolloutWriter, 'recordApp' | 'claimApp'> & Pick<AppStateWriter, 'transition'>;

/**
 * The records of apps that had none, kept in memory and written as their apps finish (in groups) and at
 * the end of a work item. Only the work item holding the cluster's lease creates app items of that commit
 * and cluster (track and the sweep change existing ones only); each write is still conditional on the item
 * not existing, so a holder whose lease ran out never overwrites what a later holder recorded.
 */
export interface NewAppRecords extends AppLedger {
  readonly size: number;
  /**
   * Writes the records of `targets` (default: all) and forgets them; returns how many were written.
   * `alongside`: other items of the table put (unconditionally) with the last batch. `release`: the lease
   * item as its release leaves it, put in the last request when the records go out in batches (then
   * `released()` is called; records DynamoDB hands back beside it are put conditionally, as past the lease).
   */
  flush(
    targets?: readonly AppTarget[],
    alongside?: readonly Readonly<Record<string, unknown>>[],
    release?: { readonly item: Readonly<Record<string, unknown>>; released(): void },
  ): Promise<number>;
  /**
   * What the written records make of the cluster's view, app by app, as written; undefined when a
   * conditional put found an item there (another holder's record: only a read knows it then).
   */
  viewed(): readonly ViewedApp[] | undefined;
}
