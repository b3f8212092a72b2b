import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RolloutMeta } from '../../../lib/rollouts/ports/rollout-writer.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { getSummaryItem } from '../../../lib/store/rollout-summary.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import {
  MAX_CLUSTER_ERRORS,
  MAX_ERROR_CHARS,
  MAX_REFS,
  omittedClusterErrors,
} from '../../../lib/store/summary-caps.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

/** An item's size as DynamoDB counts it, near enough: attribute names and values, as marshalled JSON. */
const itemBytes = (item: Record<string, unknown>) => Buffer.byteLength(JSON.stringify(marshall(item)));

let counter = 0;

describe('the rollout summary stays well under 400 KB', () => {
  let table: TestTable;
  let ref: TableRef;

  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
  });
  afterAll(async () => table.close());

  async function rollout() {
    counter += 1;
    const sha = counter.toString(16).padStart(40, 'b');
    const meta: RolloutMeta = {
      sha,
      repo: 'org/gitops',
      ref: 'refs/heads/main',
      trigger: 'webhook',
      receivedAt: new Date().toISOString(),
    };
    const writer = dynamoRolloutWriter(ref, 86_400);
    await writer.start({ ...meta, repoUrl: 'https://github.com/org/gitops' });
    return { sha, meta, writer };
  }

  it('keeps at most MAX_CLUSTER_ERRORS reasons, each cut short, and every cluster progress', async () => {
    const { sha, writer } = await rollout();
    // 300 clusters whose API servers answered with 4 KB of error text each: 1.2 MB if kept whole.
    const clusters = Array.from({ length: 300 }, (_, i) => `cluster-${String(i).padStart(3, '0')}`);
    await writer.planClusters(sha, clusters);
    for (const cluster of clusters)
      await writer.recordCluster(sha, cluster, 'failed', `${cluster}: ${'x'.repeat(4096)}`);

    const item = (await getSummaryItem(ref, sha)) as Record<string, unknown>;
    const errors = item.clusterErrors as Record<string, string>;
    expect(Object.keys(errors)).toHaveLength(MAX_CLUSTER_ERRORS);
    expect(Object.values(errors).every((m) => m.length <= MAX_ERROR_CHARS)).toBe(true);
    expect(Object.values(item.clusters as Record<string, string>).filter((p) => p === 'failed')).toHaveLength(
      300,
    );
    expect(omittedClusterErrors(item as never)).toBe(300 - MAX_CLUSTER_ERRORS);
    expect(itemBytes(item)).toBeLessThan(100_000);

    // A kept cluster's reason can still change, and it goes once the cluster is done.
    const kept = Object.keys(errors)[0] as string;
    await writer.recordCluster(sha, kept, 'retrying', 'timed out (retrying)');
    await writer.recordCluster(sha, 'cluster-299', 'done', undefined);
    const after = (await getSummaryItem(ref, sha)) as Record<string, unknown>;
    expect((after.clusterErrors as Record<string, string>)[kept]).toBe('timed out (retrying)');
    expect((after.clusters as Record<string, string>)['cluster-299']).toBe('done');
  });

  it('lists at most MAX_REFS refs of one commit and counts the rest', async () => {
    const { meta, writer, sha } = await rollout();
    const refs = Array.from({ length: MAX_REFS + 30 }, (_, i) => `refs/tags/release-${i}-${'v'.repeat(200)}`);
    for (const tag of refs)
      await writer.start({ ...meta, ref: tag, repoUrl: 'https://github.com/org/gitops' });
    // A tag already listed, pushed again (a redelivery), changes nothing.
    await writer.start({ ...meta, ref: refs[3] as string, repoUrl: 'https://github.com/org/gitops' });

    const item = (await getSummaryItem(ref, sha)) as Record<string, unknown>;
    const listed = item.refs as string[];
    expect(listed).toHaveLength(MAX_REFS);
    expect(listed[0]).toBe('refs/heads/main');
    expect(new Set(listed).size).toBe(MAX_REFS);
    expect(item.refsOmitted).toBe(31);
    expect(itemBytes(item)).toBeLessThan(100_000);
  });
});
