import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecisionRecord } from '../../../lib/rollouts/app-model.js';
import { chunkDecisionsOf, DETAIL_MAX_CHARS } from '../../../lib/store/decision-chunks.js';
import { PutCommand } from '../../../lib/store/document-client.js';
import { createTableRef, queryAll, type TableRef } from '../../../lib/store/dynamo.js';
import { rolloutPk } from '../../../lib/store/keys.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

const SHA = 'd'.repeat(40);

/** 3,000 decisions with names at Kubernetes' 253-character limit; every tenth carries a 5,000-char detail. */
function longDecisions(): DecisionRecord[] {
  return Array.from({ length: 3000 }, (_, i) => ({
    cluster: `spoke-${'c'.repeat(40)}-${i % 50}`,
    namespace: `team-${'n'.repeat(50)}`,
    name: `app-${i}-${'x'.repeat(240)}`.slice(0, 253),
    kind: 'Application',
    decision: i % 3 === 0 ? 'refreshed' : 'paths-miss',
    ...(i % 10 === 0 ? { detail: `unreadable source: ${'e'.repeat(5000)}` } : {}),
  }));
}

describe('decisions of a large push, through dynalite', () => {
  let table: TestTable;
  let ref: TableRef;
  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    await dynamoRolloutWriter(ref, 86400).start({
      sha: SHA,
      repo: 'org/gitops',
      repoUrl: 'https://github.com/org/gitops',
      ref: 'refs/heads/main',
      trigger: 'webhook',
      receivedAt: '2026-11-30T10:00:00.000Z',
    });
  });
  afterAll(async () => table.close());

  it('would not fit one DynamoDB item (what the count-based chunking wrote)', async () => {
    const put = ref.doc.send(
      new PutCommand({
        TableName: ref.tableName,
        Item: { pk: rolloutPk(SHA), sk: 'DECISIONS#probe', decisions: longDecisions().slice(0, 2000) },
      }),
    );
    await expect(put).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('records 3,000 decisions in items of at most 300 KB, each detail capped and marked as cut', async () => {
    const decisions = longDecisions();
    await dynamoRolloutWriter(ref, 86400).recordDecisions(SHA, 't1#d1#0', decisions);

    const items = await queryAll(ref, rolloutPk(SHA), 'DECISIONS#t1');
    expect(items.length).toBeGreaterThan(1);
    for (const item of items) {
      const packed = item.decisionsBr as Uint8Array;
      expect(packed).toBeInstanceOf(Uint8Array);
      // What is stored is compressed; what it expands to is still capped like the plain lists were.
      expect(packed.byteLength).toBeLessThan(300_000);
      expect(chunkDecisionsOf(item)).toHaveLength(item.decisionCount as number);
      expect(Buffer.byteLength(JSON.stringify(chunkDecisionsOf(item)), 'utf8')).toBeLessThanOrEqual(300_000);
    }
    const read = await dynamoRolloutReader(ref).decisions(SHA);
    expect(read).toHaveLength(3000);
    const byName = new Map(read.map((d) => [d.name, d]));
    for (const d of decisions) expect(byName.get(d.name)?.decision).toBe(d.decision);
    const details = read.flatMap((d) => (d.detail === undefined ? [] : [d.detail]));
    expect(details).toHaveLength(300);
    for (const detail of details) {
      expect(detail.length).toBeLessThanOrEqual(DETAIL_MAX_CHARS);
      expect(detail).toMatch(/^unreadable source: e+ …\[cut\]$/);
    }
    const summary = await dynamoRolloutReader(ref).get(SHA);
    expect(summary?.decisions).toEqual({ refreshed: 1000, 'paths-miss': 2000 });
  });

  it('bills a cluster of 400 paths-miss decisions a few write units, not one per KB of their JSON', async () => {
    const decisions: DecisionRecord[] = Array.from({ length: 400 }, (_, i) => ({
      cluster: 'spoke-17',
      namespace: 'argocd',
      name: `svc-${i}-prod`,
      kind: 'Application',
      decision: 'paths-miss',
      detail: `source path 'apps/svc-${i}' has none of the 1 changed files (apps/svc-3/values.yaml)`,
    }));
    expect(Buffer.byteLength(JSON.stringify(decisions))).toBeGreaterThan(60_000);
    await dynamoRolloutWriter(ref, 86400).recordDecisions(SHA, 'spoke-17#t2#d2#0', decisions);
    const items = await queryAll(ref, rolloutPk(SHA), 'DECISIONS#spoke-17#');
    expect(items).toHaveLength(1);
    const packed = items[0]?.decisionsBr as Uint8Array | undefined;
    expect(packed?.byteLength ?? Number.POSITIVE_INFINITY).toBeLessThan(4_000);
  });

  it('still reads decisions stored as a plain list (items written before they were compressed)', async () => {
    const sha = 'e'.repeat(40);
    const plain: DecisionRecord[] = [
      { cluster: 'c1', namespace: 'argocd', name: 'a', kind: 'Application', decision: 'refreshed' },
      {
        cluster: 'c1',
        namespace: 'argocd',
        name: 'b',
        kind: 'Application',
        decision: 'paths-miss',
        detail: 'x',
      },
    ];
    await ref.doc.send(
      new PutCommand({
        TableName: ref.tableName,
        Item: { pk: rolloutPk(sha), sk: 'DECISIONS#c1#t0#d0#0#0000', type: 'decisions', decisions: plain },
      }),
    );
    expect(await dynamoRolloutReader(ref).decisions(sha)).toEqual(plain);
  });
});
