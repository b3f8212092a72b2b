import { controlledStatus } from '../release/status.js';
import type { AppRecord, DecisionRecord, StoredApp } from '../rollouts/app-model.js';
import type { HistoryEntry, RolloutReader } from '../rollouts/ports/rollout-reader.js';
import type { RolloutSummary } from '../rollouts/rollout-model.js';
import type { RolloutStatus } from '../rollouts/state-model.js';
import { historyPage } from './app-history.js';
import { chunkDecisionsOf } from './decision-chunks.js';
import { GetCommand } from './document-client.js';
import { queryAll, type TableRef } from './dynamo.js';
import { readFeedback } from './feedback-items.js';
import { appSk, clusterAppsPrefix, rolloutPk, SUMMARY_SK } from './keys.js';
import { rememberItems } from './read-items.js';
import { checksFromChunks, secretChunkPrefix } from './secret-chunks.js';

type Item = Record<string, unknown>;

const SUMMARY_FIELDS = [
  'sha',
  'repo',
  'repoUrl',
  'ref',
  'refs',
  'provider',
  'trigger',
  'receivedAt',
  'status',
  'counts',
  'decisions',
  'author',
  'commitTitle',
  'commitUrl',
  'missedWebhook',
  'deadline',
  'finishedAt',
  'clusterErrors',
  'clusters',
  'waves',
  'actions',
  'ungated',
] as const;

const APP_FIELDS = [
  'cluster',
  'namespace',
  'name',
  'kind',
  'state',
  'decision',
  'syncStatus',
  'health',
  'revision',
  'message',
  'refreshedAt',
  'finishedAt',
  'secrets',
  'secretsSummary',
  'destination',
  'failures',
  'renderedBy',
  'renderNote',
  'wave',
  'preflight',
] as const;

function pick(item: Item, fields: readonly string[]): Item {
  const out: Item = {};
  for (const field of fields) if (item[field] !== undefined) out[field] = item[field];
  return out;
}

/** One decision per object across every fan-out of the commit (chunks come in key order: the latest wins). */
export function latestDecisions(chunks: readonly Item[]): DecisionRecord[] {
  return latestOf(chunks.flatMap((chunk) => chunkDecisionsOf(chunk)));
}

/** One decision per object, the last of it in `decisions`. */
export function latestOf(decisions: readonly DecisionRecord[]): DecisionRecord[] {
  const byObject = new Map<string, DecisionRecord>();
  for (const d of decisions) byObject.set(`${d.cluster}/${d.kind}/${d.namespace}/${d.name}`, d);
  return [...byObject.values()];
}

export function summaryFromItem(item: Item): RolloutSummary {
  const summary = pick(item, SUMMARY_FIELDS);
  // A pause, halt or abort is written on the item by release control: it says what the rollout is now,
  // before the next change of its apps stores the status again.
  // Instances noted per cluster/namespace (a map, so each is written once): the API's list.
  const ungatedBy = item.ungatedBy as Record<string, unknown> | undefined;
  if (ungatedBy !== undefined && Object.keys(ungatedBy).length > 0) {
    summary.ungated = Object.keys(ungatedBy)
      .sort()
      .map((k) => ungatedBy[k]);
  }
  if (typeof summary.status === 'string')
    summary.status = controlledStatus(summary.status as RolloutStatus, item);
  // Decision counts are kept per cluster (each work item writes its own); the rollout's are their sum.
  const byCluster = item.decisionsByCluster as Record<string, Record<string, number>> | undefined;
  if (byCluster !== undefined && Object.keys(byCluster).length > 0) {
    const sum: Record<string, number> = {};
    for (const counts of Object.values(byCluster)) {
      for (const [decision, n] of Object.entries(counts)) sum[decision] = (sum[decision] ?? 0) + n;
    }
    summary.decisions = sum;
  }
  return summary as unknown as RolloutSummary;
}

export function appFromItem(item: Item): StoredApp {
  return {
    ...(pick(item, APP_FIELDS) as unknown as AppRecord),
    version: Number(item.version ?? 0),
    ...(typeof item.claimedAt === 'string' ? { claimedAt: item.claimedAt } : {}),
    ...(typeof item.fromRevision === 'string' ? { fromRevision: item.fromRevision } : {}),
  };
}

function historyFromItem(item: Item): HistoryEntry {
  return {
    ...(pick(item, APP_FIELDS) as unknown as AppRecord),
    sha: String(item.sha),
    repo: String(item.repo),
    ref: String(item.ref),
    trigger: String(item.trigger),
    receivedAt: String(item.receivedAt),
  };
}

export function dynamoRolloutReader(table: TableRef): RolloutReader {
  const listApps = async (sha: string, cluster?: string) => {
    const items = await queryAll(
      table,
      rolloutPk(sha),
      cluster === undefined ? 'APP#' : clusterAppsPrefix(cluster),
    );
    return rememberItems(items.map(appFromItem), items);
  };
  const summary = async (sha: string) => {
    const { Item } = await table.doc.send(
      new GetCommand({
        TableName: table.tableName,
        Key: { pk: rolloutPk(sha), sk: SUMMARY_SK },
        ConsistentRead: true,
      }),
    );
    return Item === undefined ? undefined : summaryFromItem(Item);
  };
  return {
    async get(sha) {
      const found = await summary(sha);
      if (found === undefined) return undefined;
      const apps = (await listApps(sha)).map(
        ({ version: _version, claimedAt: _claimed, fromRevision: _from, ...app }) => app,
      );
      return { ...found, apps };
    },
    summary,
    listApps,
    feedback: (sha) => readFeedback(table, sha),
    async decisions(sha) {
      return latestDecisions(await queryAll(table, rolloutPk(sha), 'DECISIONS#'));
    },
    async secretChecks(sha, target) {
      const { Item } = await table.doc.send(
        new GetCommand({ TableName: table.tableName, Key: { pk: rolloutPk(sha), sk: appSk(target) } }),
      );
      if (Item === undefined) return undefined;
      const app = appFromItem(Item);
      if (app.secretsSummary === undefined) return app.secrets ?? [];
      const chunks = await queryAll(
        table,
        rolloutPk(sha),
        secretChunkPrefix(target, app.secretsSummary.listId),
      );
      // A list whose chunks are not all there (yet): the summary's first problems are what is known.
      return checksFromChunks(app.secretsSummary, chunks) ?? app.secrets ?? [];
    },
    async history(target, page) {
      const { items, nextCursor } = await historyPage(table, target, page);
      return { items: items.map(historyFromItem), ...(nextCursor === undefined ? {} : { nextCursor }) };
    },
  };
}
