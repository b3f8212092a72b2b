import type { AppStateWriter, ClusterDone, SyncedSummary, ViewedApp } from '../rollouts/ports/app-state.js';
import { OPEN_STATUSES } from '../rollouts/state-model.js';
import { GetCommand, UpdateCommand } from './document-client.js';
import { isConditionFailure, queryAll, type TableRef } from './dynamo.js';
import { clusterAppsPrefix, rolloutPk, SUMMARY_SK } from './keys.js';
import { dynamoOpenRollouts } from './open-rollouts.js';
import { latestSummariesOf, summaryClock } from './summary-latest.js';
import { statusUpdate, type Viewed, viewsAndStatusUpdate } from './summary-updates.js';
import { type ClusterView, clusterView, syncedFromItem } from './summary-views.js';
import { type GatheredView, viewGather } from './view-gather.js';

// The rollout summary item in DynamoDB: its read, and the writes that store the clusters' views
// (summary-views.ts) and the status they make (their expressions built in summary-updates.ts).

type Item = Record<string, unknown>;

export async function getSummaryItem(table: TableRef, sha: string) {
  const { Item } = await table.doc.send(
    new GetCommand({
      TableName: table.tableName,
      Key: { pk: rolloutPk(sha), sk: SUMMARY_SK },
      ConsistentRead: true,
    }),
  );
  return Item;
}

const STALE = Symbol('stale');
/** How long gathered views wait at most for the polls side by side that may write theirs. */
const MAX_GATHER_MS = 2_000;
/** Views in one update at most: its expression stays far below DynamoDB's 4 KB (~150 characters a view). */
const MAX_VIEWS_A_WRITE = 20;

type NewView = GatheredView<Viewed>;

/**
 * The rollout summary: its status derived from its clusters' views (monotonic). `ttlSeconds`: how long the
 * rollout's records live (its open-rollout item no longer).
 */
export function dynamoRolloutSummary(
  table: TableRef,
  ttlSeconds: number,
): Pick<AppStateWriter, 'syncSummary' | 'expectView'> {
  const key = (sha: string) => ({ pk: rolloutPk(sha), sk: SUMMARY_SK });
  const open = dynamoOpenRollouts(table, ttlSeconds);
  const latest = latestSummariesOf(table);
  const gather = viewGather<Viewed, SyncedSummary>({
    write: (sha, views) => writeViews(sha, views),
    oneAtATime: (sha, work) => latest.oneAtATime(sha, work),
    version: ({ view }) => view.v,
    maxPerWrite: MAX_VIEWS_A_WRITE,
    maxWaitMs: MAX_GATHER_MS,
  });

  /** Stores the views that are newer than the stored ones; the summary item afterwards. */
  async function storeViews(
    sha: string,
    views: ReadonlyMap<string, ClusterView>,
    retried = false,
  ): Promise<Item | undefined> {
    let latest: Item | undefined;
    for (const [cluster, view] of views) {
      try {
        const { Attributes } = await table.doc.send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: key(sha),
            // `viewsVersion` counts the views' writes: the single write below is conditional on it.
            UpdateExpression:
              'SET #views.#c = :view, viewsVersion = if_not_exists(viewsVersion, :zero) + :one',
            ConditionExpression:
              'attribute_exists(pk) AND (attribute_not_exists(#views.#c) OR #views.#c.#v < :v)',
            ExpressionAttributeNames: { '#views': 'views', '#c': cluster, '#v': 'v' },
            ExpressionAttributeValues: { ':view': view, ':v': view.v, ':zero': 0, ':one': 1 },
            ReturnValues: 'ALL_NEW',
          }),
        );
        latest = Attributes;
      } catch (error) {
        if (isConditionFailure(error)) latest = undefined;
        else if (isMissingMap(error) && !retried) {
          // A summary written before `views` existed: add the map once and store the views again.
          await ensureViews(sha);
          return storeViews(sha, views, true);
        } else throw error;
      }
    }
    return latest ?? getSummaryItem(table, sha);
  }

  /**
   * One cluster's newer view and the status it makes, in one write: the summary is read first (a strongly
   * consistent read costs a quarter of a write of the item, and DynamoDB bills each update at the whole
   * item's size), the status derived from it with the new view, and the write made on condition that no
   * other view, cluster progress or error changed since (`viewsVersion`, `errorsVersion`: a view stored by
   * another writer whose status write is still to come changes the first). Undefined when it
   * cannot be (the view is not newer, the summary changed meanwhile, an item without `views`): the caller
   * then takes the two-write way, which any number of writers may race on.
   *
   * Views are gathered with those of the polls or work items side by side (view-gather.ts) and go in one
   * update, each with its cluster's end if it has one (`done`: a work item's); each caller gets the summary
   * that write made.
   */
  function storeViewAndStatus(sha: string, cluster: string, view: ClusterView, done?: ClusterDone) {
    return gather.submit(sha, cluster, done === undefined ? { view } : { view, done });
  }

  /** The views' write from the kept item, or (stale: another container wrote since) once more from a read. */
  async function writeViews(sha: string, views: readonly NewView[]) {
    const kept = latest.get(sha);
    const first = await viewsAndStatusFrom(kept ?? (await readSummary(sha)), sha, views);
    if (first !== STALE) return first;
    const again = kept === undefined ? STALE : await viewsAndStatusFrom(await readSummary(sha), sha, views);
    return again === STALE ? undefined : again;
  }

  async function readSummary(sha: string) {
    const sentAt = summaryClock();
    const read = await getSummaryItem(table, sha);
    latest.set(sha, read, sentAt);
    return read;
  }

  /**
   * The single write from `read`: STALE when its condition failed (the item changed since `read`). The
   * progress and decision counts of each view's cluster with `done` are set in it too (an item without the
   * maps they go in takes the two-write way). Undefined when a view is not newer than the stored one.
   */
  async function viewsAndStatusFrom(read: Item | undefined, sha: string, views: readonly NewView[]) {
    const built = viewsAndStatusUpdate(read, views);
    if (read === undefined || built === undefined) return undefined;
    try {
      const sentAt = summaryClock();
      const { Attributes } = await table.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: key(sha),
          ...built.update,
          ReturnValues: 'ALL_NEW',
        }),
      );
      latest.set(sha, Attributes, sentAt);
      if (Attributes === undefined) return undefined;
      await reopenRevived(sha, read, built.status);
      return syncedFromItem(Attributes);
    } catch (error) {
      if (isConditionFailure(error)) {
        latest.set(sha, undefined);
        return STALE;
      }
      throw error;
    }
  }

  async function ensureViews(sha: string): Promise<void> {
    await table.doc
      .send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: key(sha),
          UpdateExpression: 'SET #views = if_not_exists(#views, :none)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#views': 'views' },
          ExpressionAttributeValues: { ':none': {} },
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
      });
  }

  /**
   * A rollout whose status was final and is open again (a retry, a catch-up or rollback push, a release
   * revived it) goes back on the sweep's list: the sweep may have closed it meanwhile.
   */
  async function reopenRevived(sha: string, before: Item, status: string): Promise<void> {
    if (!OPEN_STATUSES.has(status) || OPEN_STATUSES.has(String(before.status ?? 'pending'))) return;
    await open.open(sha, String(before.deadline ?? ''));
  }

  return {
    expectView: (sha, cluster) => gather.expect(sha, cluster),

    async syncSummary(sha: string, cluster?: string, known?: readonly ViewedApp[], done?: ClusterDone) {
      const byCluster = new Map<string, readonly (Item | ViewedApp)[]>();
      if (cluster !== undefined && known !== undefined) byCluster.set(cluster, known);
      else {
        const apps = await queryAll(
          table,
          rolloutPk(sha),
          cluster === undefined ? 'APP#' : clusterAppsPrefix(cluster),
        );
        if (cluster !== undefined) byCluster.set(cluster, apps);
        for (const app of cluster === undefined ? apps : []) {
          const name = String(app.cluster);
          byCluster.set(name, [...(byCluster.get(name) ?? []), app]);
        }
      }
      const views = new Map([...byCluster].map(([name, list]) => [name, clusterView(list, name)]));
      if (views.size === 1) {
        const [[name, view]] = [...views] as [[string, ClusterView]];
        const synced = await storeViewAndStatus(sha, name, view, done);
        if (synced !== undefined) return synced;
      }
      // The two-write way: the progress first (as a work item always wrote it), then the views and status.
      await done?.record();
      const before = views.size > 0 ? await storeViews(sha, views) : await getSummaryItem(table, sha);
      if (before === undefined) return undefined;
      const built = statusUpdate(before);
      try {
        const sentAt = summaryClock();
        const { Attributes } = await table.doc.send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: key(sha),
            ...built.update,
            ReturnValues: 'ALL_NEW',
          }),
        );
        latest.set(sha, Attributes, sentAt);
        if (Attributes !== undefined) {
          await reopenRevived(sha, before, built.status);
          return syncedFromItem(Attributes);
        }
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
      const after = await getSummaryItem(table, sha);
      return after === undefined ? undefined : syncedFromItem(after);
    },
  };
}

/** `SET views.#c` on an item written before `views` existed. */
function isMissingMap(error: unknown): boolean {
  return (
    error instanceof Error && error.name === 'ValidationException' && /document path/.test(error.message)
  );
}
