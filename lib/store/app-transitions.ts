import type { AppTransitions, TransitionWrite } from '../rollouts/ports/app-state.js';
import type { HeldLease } from '../rollouts/ports/cluster-leases.js';
import { type AppState, STATE_RANK } from '../rollouts/state-model.js';
import { batchWriteAll } from './batch-write.js';
import { releasedLeaseItem, writeThenRelease } from './cluster-leases.js';
import { type NativeItem, PutCommand } from './document-client.js';
import { ignoreConditionFailure, queryAll, type TableRef } from './dynamo.js';
import { appSk, clusterAppsPrefix, rolloutPk } from './keys.js';
import { withProblemIndex } from './problem-apps.js';
import { itemsRead } from './read-items.js';
import { appFromItem } from './rollout-items.js';

type Item = NativeItem;

/**
 * Many apps' state changes on one cluster as batch puts, for the holder of that cluster's lease: the items
 * are read once (or taken from the caller's read, when its lease says no one wrote since), each change applies only at the version it was decided on and never moves a state back
 * (what `transition`'s condition checks), then 25 items per request go out instead of one conditional
 * UpdateItem per app. BatchWriteItem carries no condition, so this is safe only because every other writer
 * of these items holds the lease or writes conditionally while no batch is under way (see
 * lib/rollouts/track-writes.ts: a poll never writes beside another track poll holding the lease).
 */
export function dynamoAppTransitions(table: TableRef): AppTransitions {
  return {
    async transitionMany(
      sha,
      cluster,
      writes: readonly TransitionWrite[],
      lease?: Pick<HeldLease, 'holder' | 'expiresAt'>,
      current?,
    ) {
      // The items the caller's read was made from when it says they are still current, else read now.
      const read =
        (current === undefined ? undefined : itemsRead(current)) ??
        (await queryAll(table, rolloutPk(sha), clusterAppsPrefix(cluster)));
      const items = new Map(read.map((item) => [item.sk, item]));
      const now = new Date().toISOString();
      const puts: Record<string, unknown>[] = [];
      const conflicts: TransitionWrite['target'][] = [];
      for (const { target, change, expectedVersion } of writes) {
        const item = items.get(appSk(target));
        const rank = change.state === undefined ? undefined : STATE_RANK[change.state];
        const current = STATE_RANK[item?.state as AppState] ?? 0;
        if (
          item === undefined ||
          Number(item.version) !== expectedVersion ||
          (rank !== undefined && current > rank)
        ) {
          conflicts.push(target);
          continue;
        }
        const next: Record<string, unknown> = { ...item };
        for (const [field, value] of Object.entries(change)) {
          if (value === null) delete next[field];
          else if (value !== undefined) next[field] = value;
        }
        if (rank !== undefined) next.stateRank = rank;
        next.version = expectedVersion + 1;
        next.updatedAt = now;
        puts.push(withProblemIndex(next));
        items.set(appSk(target), next);
      }
      const released = lease !== undefined && conflicts.length === 0 && puts.length > 0;
      // Puts DynamoDB hands back beside the release go conditional on their decided version: once the lease
      // is free another holder may batch (one that lost is decided again by the next poll).
      if (released)
        await writeThenRelease(table, puts, releasedLeaseItem(sha, cluster, lease), (late) =>
          Promise.all(late.map((item) => putAtVersion(table, item))).then(() => undefined),
        );
      else
        await batchWriteAll(
          table,
          puts.map((Item) => ({ PutRequest: { Item } })),
        );
      const apps = [...items.values()].map((item) => ({
        ...appFromItem(item),
        ...(typeof item.updatedAt === 'string' ? { updatedAt: item.updatedAt } : {}),
      }));
      return { updated: puts.length, conflicts, apps, ...(released ? { released: true } : {}) };
    },
  };
}

/** A put of an app item decided at `version - 1`, only if the stored one is still at it. */
async function putAtVersion(table: TableRef, item: Item): Promise<void> {
  await table.doc
    .send(
      new PutCommand({
        TableName: table.tableName,
        Item: item,
        ConditionExpression: '#version = :decidedAt',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':decidedAt': Number(item.version) - 1 },
      }),
    )
    .catch(ignoreConditionFailure);
}
