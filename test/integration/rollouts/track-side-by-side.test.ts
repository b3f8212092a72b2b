import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryQueue } from '../../../infra/local/memory-queue.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { systemClock } from '../../../lib/ports.js';
import type { TrackMessage } from '../../../lib/queue/messages.js';
import { liveKey, type TrackDeps, trackCluster } from '../../../lib/rollouts/track.js';
import { dynamoAppTransitions } from '../../../lib/store/app-transitions.js';
import { dynamoClusterLeases } from '../../../lib/store/cluster-leases.js';
import { createTableRef } from '../../../lib/store/dynamo.js';
import { SUMMARY_SK } from '../../../lib/store/keys.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { dynamoClusterTrackers } from '../../../lib/store/trackers.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';
import { webhookMeta } from '../../helpers/rollout-records.js';
import { syncedApplication } from '../../helpers/simulator.js';

/**
 * The polls of one SQS batch run side by side in one container, a cluster each, over the same rollouts:
 * their views of a rollout go in one summary update, and polls that wait for each other on two rollouts
 * never wait in a circle.
 */
describe('track polls side by side', () => {
  let table: TestTable;

  beforeAll(async () => {
    table = await startTestTable();
  });
  afterAll(async () => table.close());

  it('ends two rollouts on three clusters with one summary update each, without waiting out the bound', async () => {
    const ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    const summaryUpdates: string[] = [];
    const send = ref.doc.send.bind(ref.doc);
    (ref.doc as { send: unknown }).send = (command: { constructor: { name: string }; input?: unknown }) => {
      const input = command.input as { Key?: { pk?: string; sk?: string } } | undefined;
      if (command.constructor.name === 'UpdateCommand' && input?.Key?.sk === SUMMARY_SK)
        summaryUpdates.push(String(input.Key.pk));
      return send(command as never);
    };
    const clusters = ['east', 'north', 'west'];
    // Two commits, each with an app on every cluster that has ended its sync.
    const shas = ['b'.repeat(40), 'a'.repeat(40)];
    const writer = dynamoRolloutWriter(ref, 86_400);
    const reader = dynamoRolloutReader(ref);
    const trackers = dynamoClusterTrackers(ref, 86_400);
    const live = new Map<string, Map<string, unknown>>(clusters.map((c) => [c, new Map()]));
    for (const sha of shas) {
      const meta = webhookMeta(sha);
      await writer.start({ ...meta, repoUrl: 'https://github.com/org/gitops' });
      await writer.planClusters(sha, clusters);
      for (const cluster of clusters) {
        const name = `web-${sha.slice(0, 1)}`;
        await writer.recordApp(meta, {
          cluster,
          namespace: 'argocd',
          name,
          kind: 'Application',
          state: 'refreshed',
          revision: 'old',
        });
        await writer.recordCluster(sha, cluster, 'done');
        await writer.syncSummary(sha, cluster);
        await trackers.register(cluster, sha, new Date());
        live.get(cluster)?.set(liveKey('Application', 'argocd', name), syncedApplication(name, sha));
      }
    }
    const deps: TrackDeps = {
      rollouts: { ...reader, ...writer, ...dynamoAppTransitions(ref) },
      leases: dynamoClusterLeases(ref, 86_400),
      trackers,
      refPushes: { recent: async () => [] },
      live: { listTargets: async (cluster) => live.get(cluster) ?? new Map() },
      notify: async () => {},
      queue: new MemoryQueue<TrackMessage>('track'),
      clock: systemClock,
      logger: createMemoryLogger(),
      intervalSeconds: 1,
      maxIntervalSeconds: 5,
      chainLeaseSeconds: 4,
    };
    summaryUpdates.length = 0;
    const started = Date.now();
    const results = await Promise.all(
      clusters.map((cluster) => trackCluster({ type: 'track', cluster, attempt: 0 }, deps)),
    );
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(results.map((r) => r.changed)).toEqual([2, 2, 2]);
    for (const sha of shas) expect((await reader.summary(sha))?.status).toBe('succeeded');
    // One update per rollout for the three clusters' views (five when each view is written as it comes).
    expect(summaryUpdates.length).toBe(2);
  });
});
