import { randomInt, randomUUID } from 'node:crypto';
import type { ChainLease, ClusterTrackers, TrackedRollout } from '../rollouts/ports/cluster-trackers.js';
import type { TablePut } from '../rollouts/ports/table-put.js';
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from './document-client.js';
import { isConditionFailure, queryAll, type TableRef } from './dynamo.js';
import { TRACKER_CHAIN_SK, TRACKER_ROLLOUT_PREFIX, trackerPk } from './keys.js';

/**
 * One polling chain per cluster, whatever the number of rollouts in flight on it: fan-out registers a
 * rollout under the cluster (`adds`, a stamp new on every registration), then claims the chain's lease.
 * Track drops a registration only at the stamp it saw, so a registration made while it polled survives.
 * The chain item names its owner (`chain`): only that chain's messages renew or release the lease, so a
 * message redelivered after the sweep started another chain stops instead of polling beside it. `polled`
 * is set by the first renewal after a claim; until then a message without an id may adopt the claim.
 * `touched` is stamped by every claim, won or not: a poll ending the chain releases it only at the stamp it
 * read, so a rollout registered since (whose claim found the chain alive) is never left unpolled.
 */
export function dynamoClusterTrackers(table: TableRef, ttlSeconds: number): ClusterTrackers {
  const chainKey = (cluster: string) => ({ pk: trackerPk(cluster), sk: TRACKER_CHAIN_SK });
  /** A conditional update of the chain item; false when its condition failed. */
  const update = async (
    cluster: string,
    expression: string,
    condition: string,
    values: Record<string, unknown>,
  ): Promise<boolean> => {
    try {
      await table.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: chainKey(cluster),
          UpdateExpression: expression,
          ConditionExpression: condition,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  };
  return {
    async register(cluster, sha, now) {
      const { item } = registrationPut(cluster, sha, now, ttlSeconds);
      await table.doc.send(new PutCommand({ TableName: table.tableName, Item: item }));
    },

    registration: (cluster, sha, now) => registrationPut(cluster, sha, now, ttlSeconds),

    async list(cluster) {
      return (await queryAll(table, trackerPk(cluster), TRACKER_ROLLOUT_PREFIX)).map(registration);
    },

    async read(cluster) {
      // The partition is the chain item ('#CHAIN') and the registrations ('ROLLOUT#<sha>'): one Query.
      const items: Record<string, unknown>[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await table.doc.send(
          new QueryCommand({
            TableName: table.tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': trackerPk(cluster) },
            ConsistentRead: true,
            ...(start === undefined ? {} : { ExclusiveStartKey: start }),
          }),
        );
        items.push(...(page.Items ?? []));
        start = page.LastEvaluatedKey;
      } while (start !== undefined);
      const item = items.find((i) => i.sk === TRACKER_CHAIN_SK);
      const registered = items
        .filter((i) => String(i.sk).startsWith(TRACKER_ROLLOUT_PREFIX))
        .map(registration);
      if (item === undefined) return { registered };
      const chain: ChainLease = {
        polled: item.polled === true,
        ...(typeof item.chain === 'string' ? { chain: item.chain } : {}),
        ...(typeof item.leaseUntil === 'string' ? { leaseUntil: item.leaseUntil } : {}),
        ...(typeof item.touched === 'string' ? { touched: item.touched } : {}),
      };
      return { chain, registered };
    },

    async unregister(cluster, rollout) {
      try {
        await table.doc.send(
          new DeleteCommand({
            TableName: table.tableName,
            Key: { pk: trackerPk(cluster), sk: `${TRACKER_ROLLOUT_PREFIX}${rollout.sha}` },
            ConditionExpression: 'adds = :adds',
            ExpressionAttributeValues: { ':adds': rollout.adds },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    async claimChain(cluster, until, now) {
      // One unconditional write claims a free chain and stamps `touched` either way, so a chain ending now
      // (its release is conditional on the stamp it read) sees this registration instead of releasing past
      // it. A chain item naming another chain keeps it; one whose lease ran out is taken by a second write.
      const chain = randomUUID();
      const touched = touchStamp();
      const result = await table.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: chainKey(cluster),
          UpdateExpression:
            'SET touched = :touched, chain = if_not_exists(chain, :chain), leaseUntil = if_not_exists(leaseUntil, :until)',
          ExpressionAttributeValues: { ':touched': touched, ':chain': chain, ':until': until },
          ReturnValues: 'ALL_NEW',
        }),
      );
      const item = result.Attributes ?? {};
      if (item.chain === chain) return chain;
      if (typeof item.leaseUntil === 'string' && item.leaseUntil >= now.toISOString()) return undefined;
      const taken = await update(
        cluster,
        'SET leaseUntil = :until, chain = :chain REMOVE polled',
        'attribute_not_exists(leaseUntil) OR leaseUntil < :now',
        { ':until': until, ':chain': chain, ':now': now.toISOString() },
      );
      return taken ? chain : undefined;
    },

    async renewChain(cluster, chain, until) {
      if (chain !== undefined) {
        const renewed = await update(cluster, 'SET leaseUntil = :until, polled = :yes', 'chain = :chain', {
          ':until': until,
          ':yes': true,
          ':chain': chain,
        });
        return renewed ? chain : undefined;
      }
      // The first message of a claim that did not carry the chain's id: it adopts the claim, once.
      const adopted = randomUUID();
      const taken = await update(
        cluster,
        'SET leaseUntil = :until, chain = :chain, polled = :yes',
        'attribute_not_exists(polled)',
        { ':until': until, ':chain': adopted, ':yes': true },
      );
      return taken ? adopted : undefined;
    },

    async releaseChain(cluster, chain, seen) {
      if (seen === undefined)
        return update(cluster, 'REMOVE leaseUntil, chain, polled', 'chain = :chain', { ':chain': chain });
      // Only at the stamp the poll read: a claim since (a registration the poll never saw) keeps the chain.
      return seen.touched === undefined
        ? update(
            cluster,
            'REMOVE leaseUntil, chain, polled',
            'chain = :chain AND attribute_not_exists(touched)',
            {
              ':chain': chain,
            },
          )
        : update(cluster, 'REMOVE leaseUntil, chain, polled', 'chain = :chain AND touched = :touched', {
            ':chain': chain,
            ':touched': seen.touched,
          });
    },
  };
}

const registration = (item: Record<string, unknown>): TrackedRollout => ({
  sha: String(item.sha),
  adds: Number(item.adds ?? 0),
  addedAt: String(item.addedAt ?? ''),
});

let lastStamp = 0;

/** A stamp no other claim writes: the time for reading, a random part for uniqueness. */
const touchStamp = () => `${new Date().toISOString()}#${randomUUID()}`;

/**
 * A registration item: a whole put (so it can ride in another write's batch), its `adds` stamp new each
 * time: the clock in milliseconds × 1,000 plus a random part, growing within a container (below 2^53, so
 * it reads back exactly as a JavaScript number and the unregister condition compares it exactly).
 */
function registrationPut(cluster: string, sha: string, now: Date, ttlSeconds: number): TablePut {
  return {
    item: {
      pk: trackerPk(cluster),
      sk: `${TRACKER_ROLLOUT_PREFIX}${sha}`,
      sha,
      addedAt: now.toISOString(),
      expiresAt: Math.floor(now.getTime() / 1000) + ttlSeconds,
      adds: nextStamp(),
    },
  };
}

function nextStamp(): number {
  lastStamp = Math.max(lastStamp + 1, Date.now() * 1000 + randomInt(1000));
  return lastStamp;
}
