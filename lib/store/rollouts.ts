import type { AppStateWriter } from '../rollouts/ports/app-state.js';
import type { ClusterProgressWriter, DecisionTally } from '../rollouts/ports/cluster-progress.js';
import type {
  NewAppRecords,
  NewRollout,
  RolloutMeta,
  RolloutWriter,
} from '../rollouts/ports/rollout-writer.js';
import { dynamoAppLedger } from './app-ledger.js';
import { batchWriteAll } from './batch-write.js';
import { releasedLeaseItem, writeThenRelease } from './cluster-leases.js';
import { decisionItems } from './decision-chunks.js';
import { PutCommand } from './document-client.js';
import {
  epochSeconds,
  ignoreConditionFailure,
  isConditionFailure,
  queryAll,
  type TableRef,
} from './dynamo.js';
import { rolloutPk, SUMMARY_SK } from './keys.js';
import { newAppRecords } from './new-app-records.js';
import { latestDecisions, latestOf } from './rollout-items.js';
import { putListing } from './rollout-listing.js';
import { dynamoRolloutSummary } from './rollout-summary.js';
import { addRef, recordClusterProgress } from './summary-caps.js';
import { bypassingCopy, updateSummary } from './summary-latest.js';

/**
 * Rollout records on the single table: conditional writes only, no transactions (dynalite has none). The
 * summary and decision items are written here, the app items in `app-ledger.ts`.
 */
export type DynamoRolloutWriter = RolloutWriter &
  AppStateWriter &
  ClusterProgressWriter & { newApps(meta: RolloutMeta, lease?: { untilMs: number }): NewAppRecords };

export function dynamoRolloutWriter(table: TableRef, ttlSeconds: number): DynamoRolloutWriter {
  const summary = dynamoRolloutSummary(table, ttlSeconds);
  const expiresAt = (iso: string) => epochSeconds(new Date(iso)) + ttlSeconds;

  /** The cluster's decision counts in the summary (a summary written before the map existed gets it first). */
  const writeDecisionCounts = async (sha: string, { cluster, counts }: DecisionTally) => {
    const update = (expression: string, values: Record<string, unknown>) =>
      updateSummary(table, sha, {
        UpdateExpression: expression,
        ExpressionAttributeNames: {
          '#d': 'decisionsByCluster',
          ...(expression.includes('#c') ? { '#c': cluster } : {}),
        },
        ExpressionAttributeValues: values,
      });
    // A summary written before `decisionsByCluster` existed gets the map first.
    await update('SET #d.#c = :counts', { ':counts': counts }).catch(async (error: unknown) => {
      if (!(error instanceof Error && error.name === 'ValidationException')) throw error;
      await update('SET #d = if_not_exists(#d, :counts)', { ':counts': { [cluster]: counts } });
      await update('SET #d.#c = :counts', { ':counts': counts });
    });
  };

  return {
    ...summary,
    ...dynamoAppLedger(table, ttlSeconds),
    newApps: (meta, lease) => newAppRecords(table, meta, ttlSeconds, lease),
    async start(rollout: NewRollout) {
      await putListing(table, rollout, expiresAt(rollout.receivedAt));
      try {
        await bypassingCopy(table, rollout.sha, () =>
          table.doc.send(
            new PutCommand({
              TableName: table.tableName,
              Item: {
                pk: rolloutPk(rollout.sha),
                sk: SUMMARY_SK,
                type: 'rollout',
                ...rollout,
                refs: [rollout.ref],
                status: 'pending',
                counts: {},
                decisions: {},
                clusterErrors: {},
                clusters: {},
                views: {},
                decisionsByCluster: {},
                appsVersion: 0,
                expiresAt: expiresAt(rollout.receivedAt),
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            }),
          ),
        );
        return 'created';
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
      // Another push of this commit (a tag, a redelivery, a rollback to it): add its ref, move the deadline on.
      await updateSummary(table, rollout.sha, {
        UpdateExpression:
          'SET #refs = if_not_exists(#refs, :none), #clusters = if_not_exists(#clusters, :empty), deadline = :deadline',
        ConditionExpression: 'attribute_not_exists(deadline) OR deadline < :deadline',
        ExpressionAttributeNames: { '#refs': 'refs', '#clusters': 'clusters' },
        ExpressionAttributeValues: { ':none': [], ':empty': {}, ':deadline': rollout.deadline ?? '' },
      }).catch(ignoreConditionFailure);
      await addRef(table, rollout.sha, rollout.ref);
      return 'exists';
    },

    async recordDecisions(sha, batch, decisions, options = {}) {
      const { pending, withProgress, onlyBatch, lease } = options;
      const cluster = batch.slice(0, batch.indexOf('#'));
      const items = decisionItems(sha, batch, decisions, Math.floor(Date.now() / 1000) + ttlSeconds);
      const release =
        lease === undefined
          ? undefined
          : { item: releasedLeaseItem(sha, cluster, lease), released: lease.released };
      // With new app records still to write, the decisions go in their last batch: one request less.
      // Without, the decisions are one batch (and the lease's release with them).
      if (pending !== undefined) await pending.flush(undefined, items, release);
      else if (release !== undefined) {
        // Decision chunks are this work item's own keys: handed back, they are put as they are.
        await writeThenRelease(table, items, release.item, async (late) => {
          for (const Item of late) await table.doc.send(new PutCommand({ TableName: table.tableName, Item }));
        });
        release.released();
      } else
        await batchWriteAll(
          table,
          items.map((Item) => ({ PutRequest: { Item } })),
        );
      // Counted per cluster (its own batches only, not every cluster's); readers add the clusters up.
      const counts: Record<string, number> = {};
      const latest =
        onlyBatch === true
          ? latestOf(decisions)
          : latestDecisions(await queryAll(table, rolloutPk(sha), `DECISIONS#${cluster}#`));
      for (const d of latest) counts[d.decision] = (counts[d.decision] ?? 0) + 1;
      if (withProgress === true) return { cluster, counts };
      await writeDecisionCounts(sha, { cluster, counts });
      return undefined;
    },

    async planClusters(sha, clusters) {
      if (clusters.length === 0) return;
      const names: Record<string, string> = {};
      const parts: string[] = [];
      clusters.forEach((cluster, i) => {
        names[`#c${i}`] = cluster;
        parts.push(`#clusters.#c${i} = :planned`);
      });
      await updateSummary(table, sha, {
        UpdateExpression: `SET ${parts.join(', ')}, errorsVersion = if_not_exists(errorsVersion, :zero) + :one`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { ...names, '#clusters': 'clusters' },
        ExpressionAttributeValues: { ':planned': 'planned', ':zero': 0, ':one': 1 },
      });
    },

    async recordCluster(sha, cluster, progress, message, decided) {
      if (decided === undefined) {
        await recordClusterProgress(table, sha, cluster, progress, message);
        return;
      }
      const written = await recordClusterProgress(table, sha, cluster, progress, message, decided.counts);
      if (written) return;
      // A summary without the decisions map: the progress alone, then the counts the way that makes the map.
      await recordClusterProgress(table, sha, cluster, progress, message);
      await writeDecisionCounts(sha, decided);
    },
  };
}
