import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseParts } from '../../../lib/composition/runtime-release.js';
import { parseFleetFile } from '../../../lib/fleet/fleet-file.js';
import { createLogger } from '../../../lib/logger.js';
import type { Queue } from '../../../lib/ports.js';
import type { FanoutMessage } from '../../../lib/queue/messages.js';
import { createTableRef } from '../../../lib/store/dynamo.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { recordCommands, startTestTable, type TestTable } from '../../helpers/dynamo.js';

/**
 * The work items of one SQS batch ask release control's state of their rollout side by side: they share a
 * read in flight, and a read that has come back is never handed to a later work item.
 */
describe('release control state for the work items of a batch (dynalite)', () => {
  let table: TestTable;
  beforeAll(async () => {
    table = await startTestTable();
  });
  afterAll(async () => table.close());

  it('shares a read in flight of a rollout’s state, and reads again once it has come back', async () => {
    const ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    const sha = 'd'.repeat(40);
    const writer = dynamoRolloutWriter(ref, 86_400);
    await writer.start({
      sha,
      repo: 'org/gitops',
      ref: 'refs/heads/main',
      trigger: 'webhook',
      receivedAt: '2026-12-04T07:00:00.000Z',
      repoUrl: 'https://github.com/org/gitops',
    });
    const fleet = parseFleetFile(
      'clusters:\n  - name: hub\n    server: https://k8s.example\n    auth: { tokenSecret: hub }\n',
    );
    const queue: Queue<FanoutMessage> = { send: async () => undefined, sendBatch: async () => undefined };
    const parts = releaseParts(
      {
        table: ref,
        clock: { now: () => new Date() },
        logger: createLogger({ level: 'SILENT' }),
        pushQueue: queue,
        config: { trackDeadlineSeconds: 900, freezeCacheSeconds: 30 },
      },
      fleet,
      { open: async () => undefined },
      async () => [],
    );
    const sent = recordCommands(ref);
    const side = await Promise.all([1, 2, 3, 4, 5].map(() => parts.holdContext(sha, 'hub')));
    const reads = () => sent.filter((c) => c === 'GetCommand').length;
    expect(reads()).toBe(1);
    // Every work item got the state that read returned.
    expect(new Set(side.map((h) => h.control)).size).toBe(1);
    expect(side[0]?.control?.paused).not.toBe(true);
    // An operator pauses the rollout: a work item after the read came back sees it.
    await parts.control.setFlag(sha, 'paused', true);
    const later = await parts.holdContext(sha, 'hub');
    expect(reads()).toBe(2);
    expect(later.control?.paused).toBe(true);
  });
});
