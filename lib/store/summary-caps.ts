import type { ClusterProgress } from '../rollouts/rollout-model.js';
import { UpdateCommand } from './document-client.js';
import { isConditionFailure, type TableRef } from './dynamo.js';
import { rolloutPk, SUMMARY_SK } from './keys.js';
import { addListedRef } from './rollout-listing.js';
import { latestSummariesOf, summaryClock, updateSummary } from './summary-latest.js';

/**
 * The rollout summary is one item (DynamoDB: at most 400 KB), so what grows with events stays bounded:
 * at most MAX_REFS refs (the first ones; further refs of the commit are counted in `refsOmitted`) and at
 * most MAX_CLUSTER_ERRORS cluster errors of at most MAX_ERROR_CHARS each. A cluster past the cap still has
 * its progress in `clusters` (what the status is derived from); only its reason is not kept, and
 * `omittedClusterErrors` counts such clusters. About 25 KB at the caps.
 */
export const MAX_REFS = 50;
export const MAX_CLUSTER_ERRORS = 50;
export const MAX_ERROR_CHARS = 500;

const key = (sha: string) => ({ pk: rolloutPk(sha), sk: SUMMARY_SK });

/** A reason cut to MAX_ERROR_CHARS (an API server's error text can be kilobytes). */
export function cappedReason(message: string): string {
  return message.length <= MAX_ERROR_CHARS ? message : `${message.slice(0, MAX_ERROR_CHARS - 1)}…`;
}

/** Clusters whose work failed or is retrying without a reason kept (past MAX_CLUSTER_ERRORS). */
export function omittedClusterErrors(summary: {
  readonly clusters?: Readonly<Record<string, string>>;
  readonly clusterErrors?: Readonly<Record<string, string>>;
}): number {
  return Object.entries(summary.clusters ?? {}).filter(
    ([cluster, progress]) =>
      (progress === 'failed' || progress === 'retrying') && summary.clusterErrors?.[cluster] === undefined,
  ).length;
}

/** Another ref of the commit: appended while fewer than MAX_REFS are listed, else counted. */
export async function addRef(table: TableRef, sha: string, ref: string): Promise<void> {
  await addListedRef(table, sha, ref, MAX_REFS);
  const send = (expression: string, condition: string, values: Record<string, unknown>) =>
    updateSummary(table, sha, {
      UpdateExpression: expression,
      ConditionExpression: condition,
      ExpressionAttributeNames: { '#refs': 'refs' },
      ExpressionAttributeValues: { ':refValue': ref, ':max': MAX_REFS, ...values },
    }).then(
      () => true,
      (error: unknown) => {
        if (isConditionFailure(error)) return false;
        throw error;
      },
    );
  if (
    await send(
      'SET #refs = list_append(#refs, :ref)',
      'NOT contains(#refs, :refValue) AND size(#refs) < :max',
      { ':ref': [ref] },
    )
  )
    return;
  // A ref already listed adds nothing; a redelivered push of an omitted ref is counted again (at most).
  await send('ADD refsOmitted :one', 'NOT contains(#refs, :refValue) AND size(#refs) >= :max', { ':one': 1 });
}

/**
 * A cluster's work item progress, with its reason (failed, retrying) or without (the reason removed): one
 * update; a new reason past MAX_CLUSTER_ERRORS is left out (a second update records the progress alone).
 * `decisions`: the cluster's decision counts, set in the same update. False when the summary was written
 * before a map the update sets existed (nothing was written), else true (a missing summary included).
 */
export async function recordClusterProgress(
  table: TableRef,
  sha: string,
  cluster: string,
  progress: ClusterProgress,
  message: string | undefined,
  decisions?: Readonly<Record<string, number>>,
): Promise<boolean> {
  const counts = decisions === undefined ? '' : ', #d.#c = :counts';
  // The item it makes is kept for the view-and-status write that follows (no read before it).
  const send = (errorClause: string, condition: string, values: Record<string, unknown>) =>
    sendUpdate(table, sha, {
      TableName: table.tableName,
      Key: key(sha),
      UpdateExpression: `SET #clusters.#c = :p, errorsVersion = if_not_exists(errorsVersion, :zero) + :one${counts}${errorClause}`,
      ConditionExpression: `attribute_exists(pk)${condition}`,
      ExpressionAttributeNames: {
        '#c': cluster,
        '#clusters': 'clusters',
        ...(errorClause === '' ? {} : { '#e': 'clusterErrors' }),
        ...(decisions === undefined ? {} : { '#d': 'decisionsByCluster' }),
      },
      ExpressionAttributeValues: {
        ':p': progress,
        ':zero': 0,
        ':one': 1,
        ...(decisions === undefined ? {} : { ':counts': decisions }),
        ...values,
      },
      ReturnValues: 'ALL_NEW',
    });
  if (message === undefined) return send(' REMOVE #e.#c', '', {}).then(() => true, ignoreMissingSummary);
  try {
    await send(', #e.#c = :m', ' AND (attribute_exists(#e.#c) OR size(#e) < :max)', {
      ':m': cappedReason(message),
      ':max': MAX_CLUSTER_ERRORS,
    });
    return true;
  } catch (error) {
    if (!isConditionFailure(error)) return ignoreMissingSummary(error);
    return send('', '', {}).then(() => true, ignoreMissingSummary);
  }
}

/**
 * `recordClusterProgress(…, 'done', undefined, decisions)` for each of `done` as parts of another update of
 * the summary (the clusters' view-and-status write, rollout-summary.ts): each cluster's progress `done`, its
 * reason removed, its decision counts, `errorsVersion` moved on once; `after`, the fields as the update
 * leaves them, for the status derived with them. Each cluster's name is the update's `#c<at>` (the
 * placeholder its view's write names too). Null when `read` lacks a map they go in (written before it
 * existed).
 */
export function clustersDoneUpdate(
  read: Readonly<Record<string, unknown>>,
  done: readonly {
    readonly cluster: string;
    readonly at: string;
    readonly decisions: Readonly<Record<string, number>> | undefined;
  }[],
) {
  const errors = read.clusterErrors as Record<string, unknown> | undefined;
  const counted = done.some((d) => d.decisions !== undefined);
  if (read.clusters === undefined || (counted && read.decisionsByCluster === undefined)) return null;
  const sets: string[] = [];
  const remove: string[] = [];
  const values: Record<string, unknown> = { ':done': 'done' };
  const clusters = { ...(read.clusters as Record<string, unknown>) };
  const errorsAfter = { ...errors };
  for (const { cluster, at, decisions } of done) {
    sets.push(`#clusters.#c${at} = :done`);
    if (decisions !== undefined) {
      sets.push(`#d.#c${at} = :decisions${at}`);
      values[`:decisions${at}`] = decisions;
    }
    if (errors?.[cluster] !== undefined) remove.push(`#e.#c${at}`);
    clusters[cluster] = 'done';
    delete errorsAfter[cluster];
  }
  return {
    set: `, ${sets.join(', ')}, errorsVersion = if_not_exists(errorsVersion, :zero) + :one`,
    remove,
    names: {
      '#clusters': 'clusters',
      ...(counted ? { '#d': 'decisionsByCluster' } : {}),
      ...(remove.length > 0 ? { '#e': 'clusterErrors' } : {}),
    },
    values,
    after: {
      clusters,
      ...(remove.length > 0 ? { clusterErrors: errorsAfter } : {}),
      errorsVersion: Number(read.errorsVersion ?? 0) + 1,
    },
  };
}

/**
 * No summary (a condition failure: true, nothing to record), or one written before the maps existed
 * (false: nothing was written).
 */
function ignoreMissingSummary(error: unknown): boolean {
  if (isConditionFailure(error)) return true;
  if (error instanceof Error && error.name === 'ValidationException' && /document path/.test(error.message))
    return false;
  throw error;
}

async function sendUpdate(
  table: TableRef,
  sha: string,
  input: ConstructorParameters<typeof UpdateCommand>[0],
): Promise<void> {
  const sentAt = summaryClock();
  const { Attributes } = await table.doc.send(new UpdateCommand(input));
  latestSummariesOf(table).offer(sha, Attributes, sentAt);
}
