import { randomInt, randomUUID } from 'node:crypto';
import type { ChainLease, ClusterTrackers, TrackedRollout } from '../rollouts/ports/cluster-trackers.js';
import { DeleteCommand, QueryCommand, UpdateCommand } from './document-client.js';
import { isConditionFailure, type TableRef } from './dynamo.js';
import { TRACKER_CHAIN_SK, TRACKER_ROLLOUT_PREFIX, trackerPk } from './keys.js';

/**
 * One polling chain per cluster, whatever the number of rollouts in flight on it: fan-out registers a
 * rollout on the cluster's chain item (an attribute `REG#<sha>` holding `adds`, a stamp new on every
 * registration, and `addedAt`) in the same write that claims the chain's lease. Track drops a registration
 * only at the stamp it saw, so a registration made while it polled survives; the poll that ends the chain
 * drops its rollouts and releases the lease in one write. Registrations a version before this one wrote as
 * items of their own (`ROLLOUT#<sha>` in the same partition) are read and dropped as before.
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
  // The chain item outlives its last registration by the registrations' time to live (a cluster dropped
  // from the fleet leaves nothing behind for ever).
  const expiresAt = (now: Date) => Math.floor(now.getTime() / 1000) + ttlSeconds;
  const read = async (cluster: string) => {
    // The partition is the chain item ('#CHAIN', with the registrations) and the items of registrations
    // an earlier version made ('ROLLOUT#<sha>'): one Query.
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
    const legacy = items
      .filter((i) => String(i.sk).startsWith(TRACKER_ROLLOUT_PREFIX))
      .map((i): TrackedRollout => ({ ...registration(i), legacy: true }));
    if (item === undefined) return { registered: legacy };
    const registered = [...registrationsOn(item), ...legacy];
    const chain: ChainLease = {
      polled: item.polled === true,
      ...(typeof item.chain === 'string' ? { chain: item.chain } : {}),
      ...(typeof item.leaseUntil === 'string' ? { leaseUntil: item.leaseUntil } : {}),
      ...(typeof item.touched === 'string' ? { touched: item.touched } : {}),
    };
    return { chain, registered };
  };
  return {
    async register(cluster, sha, now) {
      // Stamped touched like a claim: a chain ending now sees the registration instead of releasing past it.
      await table.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: chainKey(cluster),
          UpdateExpression: 'SET touched = :touched, #reg = :reg, expiresAt = :expires',
          ExpressionAttributeNames: { '#reg': registrationAttribute(sha) },
          ExpressionAttributeValues: {
            ':touched': touchStamp(),
            ':reg': registrationValue(now),
            ':expires': expiresAt(now),
          },
        }),
      );
    },

    list: async (cluster) => (await read(cluster)).registered,

    read,

    async unregister(cluster, rollout) {
      if (rollout.legacy !== true) {
        try {
          await table.doc.send(
            new UpdateCommand({
              TableName: table.tableName,
              Key: chainKey(cluster),
              UpdateExpression: 'REMOVE #reg',
              ConditionExpression: '#reg.adds = :adds',
              ExpressionAttributeNames: { '#reg': registrationAttribute(rollout.sha) },
              ExpressionAttributeValues: { ':adds': rollout.adds },
            }),
          );
          return true;
        } catch (error) {
          if (isConditionFailure(error)) return false;
          throw error;
        }
      }
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

    async claimChain(cluster, until, now, sha) {
      // One unconditional write registers the rollout, claims a free chain and stamps `touched` either way,
      // so a chain ending now (its release is conditional on the stamp it read) sees this registration
      // instead of releasing past it. A chain item naming another chain keeps it; one whose lease ran out
      // is taken by a second write.
      const chain = randomUUID();
      const touched = touchStamp();
      const result = await table.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: chainKey(cluster),
          UpdateExpression: `SET touched = :touched, chain = if_not_exists(chain, :chain), leaseUntil = if_not_exists(leaseUntil, :until)${sha === undefined ? '' : ', #reg = :reg, expiresAt = :expires'}`,
          ...(sha === undefined ? {} : { ExpressionAttributeNames: { '#reg': registrationAttribute(sha) } }),
          ExpressionAttributeValues: {
            ':touched': touched,
            ':chain': chain,
            ':until': until,
            ...(sha === undefined ? {} : { ':reg': registrationValue(now), ':expires': expiresAt(now) }),
          },
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
      return releaseAt(cluster, chain, seen, []);
    },

    async endChain(cluster, chain, seen, rollouts) {
      // Items of an earlier version's registrations are not attributes of this one: the caller drops them.
      if (rollouts.some((r) => r.legacy === true)) return false;
      return releaseAt(cluster, chain, seen, rollouts);
    },
  };

  /**
   * Drops `rollouts` and releases the lease in one write, only at the stamp the poll read: a claim or a
   * registration since (a rollout the poll never saw) keeps the chain, and every registration with it.
   */
  async function releaseAt(
    cluster: string,
    chain: string,
    seen: ChainLease,
    rollouts: readonly TrackedRollout[],
  ): Promise<boolean> {
    const names: Record<string, string> = {};
    rollouts.forEach((r, i) => {
      names[`#r${i}`] = registrationAttribute(r.sha);
    });
    const removed = ['leaseUntil', 'chain', 'polled', ...Object.keys(names)].join(', ');
    try {
      await table.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: chainKey(cluster),
          UpdateExpression: `REMOVE ${removed}`,
          ConditionExpression:
            seen.touched === undefined
              ? 'chain = :chain AND attribute_not_exists(touched)'
              : 'chain = :chain AND touched = :touched',
          ...(rollouts.length === 0 ? {} : { ExpressionAttributeNames: names }),
          ExpressionAttributeValues: {
            ':chain': chain,
            ...(seen.touched === undefined ? {} : { ':touched': seen.touched }),
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

const REGISTRATION_PREFIX = 'REG#';

/** The chain item's attribute that registers a rollout. */
const registrationAttribute = (sha: string) => `${REGISTRATION_PREFIX}${sha}`;

const registrationValue = (now: Date) => ({ adds: nextStamp(), addedAt: now.toISOString() });

/** The registrations the chain item holds. */
function registrationsOn(item: Record<string, unknown>): TrackedRollout[] {
  const found: TrackedRollout[] = [];
  for (const [name, value] of Object.entries(item)) {
    if (!name.startsWith(REGISTRATION_PREFIX) || typeof value !== 'object' || value === null) continue;
    const { adds, addedAt } = value as { adds?: unknown; addedAt?: unknown };
    found.push({
      sha: name.slice(REGISTRATION_PREFIX.length),
      adds: Number(adds ?? 0),
      addedAt: String(addedAt ?? ''),
    });
  }
  return found.sort((a, b) => (a.sha < b.sha ? -1 : 1));
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
 * A registration's `adds`: the clock in milliseconds × 1,000 plus a random part, growing within a container
 * (below 2^53, so it reads back exactly as a JavaScript number and the unregister condition compares it
 * exactly).
 */
function nextStamp(): number {
  lastStamp = Math.max(lastStamp + 1, Date.now() * 1000 + randomInt(1000));
  return lastStamp;
}
