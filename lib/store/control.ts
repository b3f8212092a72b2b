import type { ControlState, ControlStore } from '../release/ports.js';
import { controlledStatus } from '../release/status.js';
import type { OperatorAction, WaveProgress } from '../rollouts/rollout-model.js';
import type { RolloutStatus } from '../rollouts/state-model.js';
import { GetCommand, type NativeItem, type UpdateCommand } from './document-client.js';
import { isConditionFailure, type TableRef } from './dynamo.js';
import { rolloutPk, SUMMARY_SK } from './keys.js';
import { updateSummary } from './summary-latest.js';

/** Actions kept on a rollout; past it the oldest is dropped and `actionsDropped` counts it. */
export const MAX_ACTIONS = 100;
/** Rounds of "drop the oldest, append" before giving up (only other recorders racing for the same slot). */
const MAX_APPEND_ROUNDS = 5;

const WAVE_FIELDS = ['name', 'clusters', 'openedAt', 'doneAt', 'soakUntil', 'reason', 'skipFailed'] as const;

/**
 * Release control's state on the rollout's summary item (`waves`, `paused`, `aborted`, `halted`, `actions`),
 * every change a conditional update: a wave moves only from the states its caller saw, so two pollers that
 * see a gate at once open it exactly once.
 */
export function dynamoControlStore(table: TableRef): ControlStore {
  const key = (sha: string) => ({ pk: rolloutPk(sha), sk: SUMMARY_SK });

  /** The update, or false when its condition did not hold. */
  async function conditional(
    sha: string,
    expression: Omit<UpdateParams, 'Key' | 'TableName'>,
  ): Promise<boolean> {
    try {
      await updateSummary(table, sha, expression);
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async function append(sha: string, action: OperatorAction): Promise<boolean> {
    return conditional(sha, {
      UpdateExpression: 'SET #a = list_append(if_not_exists(#a, :none), :one)',
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#a) OR size(#a) < :max)',
      ExpressionAttributeNames: { '#a': 'actions' },
      ExpressionAttributeValues: { ':none': [], ':one': [action], ':max': MAX_ACTIONS },
    });
  }

  /** Drops the oldest action, only while the list is full (two racing recorders never drop two). */
  async function dropOldest(sha: string): Promise<void> {
    await conditional(sha, {
      UpdateExpression: 'REMOVE #a[0] SET #d = if_not_exists(#d, :zero) + :one',
      ConditionExpression: 'size(#a) >= :max',
      ExpressionAttributeNames: { '#a': 'actions', '#d': 'actionsDropped' },
      ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':max': MAX_ACTIONS },
    });
  }

  async function read(sha: string) {
    const { Item } = await table.doc.send(
      new GetCommand({
        TableName: table.tableName,
        Key: key(sha),
        ConsistentRead: true,
        ProjectionExpression: 'pk, #s, waves, paused, aborted, halted',
        ExpressionAttributeNames: { '#s': 'status' },
      }),
    );
    return Item === undefined ? undefined : controlFromItem(Item);
  }

  return {
    read,

    async initWaves(sha, waves) {
      const done = await conditional(sha, {
        UpdateExpression: 'SET #w = if_not_exists(#w, :waves)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#w': 'waves' },
        ExpressionAttributeValues: { ':waves': waves },
      });
      if (!done) throw new Error(`no rollout for commit ${sha} to hold waves`);
    },

    async moveWave(sha, index, from, to) {
      if (!Number.isInteger(index) || index < 0 || from.length === 0) return false;
      const names: Record<string, string> = { '#w': 'waves', '#s': 'state' };
      const values: NativeItem = { ':to': to.state };
      const sets = [`#w[${index}].#s = :to`];
      for (const field of WAVE_FIELDS) {
        const value = to[field];
        if (value === undefined) continue;
        names[`#${field}`] = field;
        values[`:${field}`] = value;
        sets.push(`#w[${index}].#${field} = :${field}`);
      }
      const froms = from.map((_, i) => `:from${i}`);
      from.forEach((state, i) => {
        values[`:from${i}`] = state;
      });
      return conditional(sha, {
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: `attribute_exists(pk) AND #w[${index}].#s IN (${froms.join(', ')})`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      });
    },

    async setFlag(sha, flag, value) {
      // Cleared flags are removed: an absent flag reads as false.
      return value
        ? conditional(sha, {
            UpdateExpression: 'SET #f = :true',
            ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#f) OR #f <> :true)',
            ExpressionAttributeNames: { '#f': flag },
            ExpressionAttributeValues: { ':true': true },
          })
        : conditional(sha, {
            UpdateExpression: 'REMOVE #f',
            ConditionExpression: 'attribute_exists(pk) AND #f = :true',
            ExpressionAttributeNames: { '#f': flag },
            ExpressionAttributeValues: { ':true': true },
          });
    },

    async haltWave(sha, index) {
      // One update: the flag only while that wave is still halted (a resume that opened it since wins).
      return conditional(sha, {
        UpdateExpression: 'SET #f = :true',
        ConditionExpression: `attribute_exists(pk) AND #w[${String(index)}].#s = :halted`,
        ExpressionAttributeNames: { '#f': 'halted', '#w': 'waves', '#s': 'state' },
        ExpressionAttributeValues: { ':true': true, ':halted': 'halted' },
      });
    },

    async recordAction(sha, action) {
      for (let round = 0; round < MAX_APPEND_ROUNDS; round++) {
        if (await append(sha, action)) return;
        const state = await read(sha);
        if (state === undefined) throw new Error(`no rollout for commit ${sha} to record an action on`);
        await dropOldest(sha);
      }
      throw new Error(`could not record ${action.action} on ${sha}: the action list stayed full`);
    },
  };
}

type UpdateParams = ConstructorParameters<typeof UpdateCommand>[0];

function controlFromItem(item: NativeItem): ControlState & { status: RolloutStatus } {
  return {
    // As the read API says it: a pause, a halt or an abort is what the rollout is now.
    status: controlledStatus(String(item.status ?? 'pending') as RolloutStatus, item),
    ...(Array.isArray(item.waves) ? { waves: item.waves as WaveProgress[] } : {}),
    ...(item.paused === true ? { paused: true } : {}),
    ...(item.aborted === true ? { aborted: true } : {}),
    ...(item.halted === true ? { halted: true } : {}),
  };
}
