import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SlackNotice, SlackNoticeStore, SlackNoticeUpdate } from '../notify/notice-store.js';
import type { Clock } from '../ports.js';
import { DeleteCommand, documentClient, GetCommand, PutCommand, UpdateCommand } from './document-client.js';
import { rolloutPk, slackSk } from './keys.js';

export interface SlackRefsOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly clock: Clock;
  /** A claim without a message after this long is taken to be abandoned (its holder died mid-post). */
  readonly claimTtlSeconds?: number;
}

const OPTIONAL_FIELDS = ['ts', 'channelId', 'contentHash', 'progress'] as const;

/** Slack message references (`ROLLOUT#<sha>` / `SLACK#<channel>`) with conditional writes only. */
export function createSlackRefs(options: SlackRefsOptions): SlackNoticeStore {
  const doc = documentClient(options.client);
  const table = options.tableName;
  const ttlMs = (options.claimTtlSeconds ?? 60) * 1000;
  const key = (sha: string, channel: string) => ({ pk: rolloutPk(sha), sk: slackSk(channel) });

  return {
    async get(sha, channel) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: table, Key: key(sha, channel), ConsistentRead: true }),
      );
      return Item === undefined ? undefined : toNotice(Item);
    },

    async claim(sha, channel) {
      const now = options.clock.now();
      return conditional(
        doc.send(
          new PutCommand({
            TableName: table,
            Item: {
              ...key(sha, channel),
              type: 'slack',
              version: 1,
              claimedAt: now.toISOString(),
              repliedApps: [],
            },
            ConditionExpression:
              'attribute_not_exists(pk) OR (attribute_not_exists(ts) AND claimedAt < :stale)',
            ExpressionAttributeValues: { ':stale': new Date(now.getTime() - ttlMs).toISOString() },
          }),
        ),
      );
    },

    async save(sha, channel, update, expectedVersion) {
      const now = options.clock.now().toISOString();
      const names: Record<string, string> = { '#version': 'version' };
      const values: Record<string, unknown> = {
        ':next': expectedVersion + 1,
        ':replied': [...new Set(update.repliedApps)],
        ':now': now,
        ':type': 'slack',
      };
      const sets = [
        '#version = :next',
        'repliedApps = :replied',
        'updatedAt = :now',
        'claimedAt = if_not_exists(claimedAt, :now)',
        '#type = :type',
      ];
      names['#type'] = 'type';
      const removes: string[] = [];
      for (const field of OPTIONAL_FIELDS) {
        names[`#${field}`] = field;
        const value = update[field];
        if (value === undefined) removes.push(`#${field}`);
        else {
          sets.push(`#${field} = :${field}`);
          values[`:${field}`] = value;
        }
      }
      if (expectedVersion > 0) values[':expected'] = expectedVersion;
      return conditional(
        doc.send(
          new UpdateCommand({
            TableName: table,
            Key: key(sha, channel),
            UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
            ConditionExpression: expectedVersion > 0 ? '#version = :expected' : 'attribute_not_exists(pk)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          }),
        ),
      );
    },

    async release(sha, channel) {
      await conditional(
        doc.send(
          new DeleteCommand({
            TableName: table,
            Key: key(sha, channel),
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(ts)',
          }),
        ),
      );
    },
  };
}

async function conditional(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

function toNotice(item: Record<string, unknown>): SlackNotice {
  const text = (name: string) => (typeof item[name] === 'string' ? (item[name] as string) : undefined);
  const replied = Array.isArray(item.repliedApps)
    ? item.repliedApps.filter((a) => typeof a === 'string')
    : [];
  const notice: SlackNoticeUpdate & { version: number; claimedAt: string } = {
    version: typeof item.version === 'number' ? item.version : 0,
    claimedAt: text('claimedAt') ?? '',
    repliedApps: replied,
    ...optional('ts', text('ts')),
    ...optional('channelId', text('channelId')),
    ...optional('contentHash', text('contentHash')),
    ...optional('progress', typeof item.progress === 'number' ? item.progress : undefined),
  };
  return notice;
}

function optional<K extends string, V>(name: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [name]: value }) as { [P in K]?: V };
}
