import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackNoticeStore } from '../../../lib/notify/notice-store.js';
import type { Clock } from '../../../lib/ports.js';
import { documentClient, GetCommand } from '../../../lib/store/document-client.js';
import { createSlackRefs } from '../../../lib/store/slack-refs.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

describe('Slack message references in DynamoDB (dynalite)', () => {
  let table: TestTable;
  let store: SlackNoticeStore;
  let now = new Date('2026-01-01T10:00:00Z');
  const clock: Clock = { now: () => now };
  let shaCounter = 0;
  const nextSha = () => {
    shaCounter += 1;
    return `sha${String(shaCounter).padStart(37, '0')}`;
  };

  beforeAll(async () => {
    table = await startTestTable();
    store = createSlackRefs({ client: table.client, tableName: table.tableName, clock, claimTtlSeconds: 60 });
  });
  afterAll(async () => {
    await table.close();
  });

  it('has nothing for a rollout never notified', async () => {
    expect(await store.get(nextSha(), '#deploys')).toBeUndefined();
  });

  it('lets exactly one of several concurrent claims win', async () => {
    const sha = nextSha();
    const results = await Promise.all(Array.from({ length: 5 }, () => store.claim(sha, '#deploys')));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.get(sha, '#deploys')).toMatchObject({ version: 1, repliedApps: [] });
  });

  it('keys claims by channel, so two channels each get their own message', async () => {
    const sha = nextSha();
    expect(await store.claim(sha, '#deploys')).toBe(true);
    expect(await store.claim(sha, '#platform')).toBe(true);
  });

  it('stores the item under ROLLOUT#<sha> / SLACK#<channel>', async () => {
    const sha = nextSha();
    await store.claim(sha, '#deploys');
    const { Item } = await documentClient(table.client).send(
      new GetCommand({ TableName: table.tableName, Key: { pk: `ROLLOUT#${sha}`, sk: 'SLACK##deploys' } }),
    );
    expect(Item).toMatchObject({ version: 1, claimedAt: '2026-01-01T10:00:00.000Z' });
  });

  it('saves only over the version it read, and counts versions up', async () => {
    const sha = nextSha();
    await store.claim(sha, '#deploys');
    const posted = { ts: '1.000001', channelId: 'C1', contentHash: 'h1', progress: 3, repliedApps: ['a'] };
    expect(await store.save(sha, '#deploys', posted, 1)).toBe(true);
    expect(await store.save(sha, '#deploys', { ...posted, contentHash: 'stale' }, 1)).toBe(false);
    expect(await store.get(sha, '#deploys')).toMatchObject({ ...posted, version: 2 });
  });

  it('clears a field saved as absent', async () => {
    const sha = nextSha();
    await store.save(sha, 'webhook', { contentHash: 'final', repliedApps: [] }, 0);
    await store.save(sha, 'webhook', { repliedApps: ['x'] }, 1);
    const notice = await store.get(sha, 'webhook');
    expect(notice?.contentHash).toBeUndefined();
    expect(notice?.repliedApps).toEqual(['x']);
  });

  it('creates the item with version 0 expected only when there is none', async () => {
    const sha = nextSha();
    expect(await store.save(sha, 'webhook', { repliedApps: [] }, 0)).toBe(true);
    expect(await store.save(sha, 'webhook', { repliedApps: [] }, 0)).toBe(false);
  });

  it('lets a stale claim without a message be taken over, but never a posted one', async () => {
    const abandoned = nextSha();
    const posted = nextSha();
    await store.claim(abandoned, '#deploys');
    await store.claim(posted, '#deploys');
    await store.save(posted, '#deploys', { ts: '1.1', repliedApps: [] }, 1);
    expect(await store.claim(abandoned, '#deploys')).toBe(false);
    now = new Date(now.getTime() + 61_000);
    expect(await store.claim(abandoned, '#deploys')).toBe(true);
    expect(await store.claim(posted, '#deploys')).toBe(false);
  });

  it('releases a claim that never got its message, and leaves a posted one alone', async () => {
    const failed = nextSha();
    const posted = nextSha();
    await store.claim(failed, '#deploys');
    await store.claim(posted, '#deploys');
    await store.save(posted, '#deploys', { ts: '1.2', repliedApps: [] }, 1);
    await store.release(failed, '#deploys');
    await store.release(posted, '#deploys');
    expect(await store.get(failed, '#deploys')).toBeUndefined();
    expect(await store.get(posted, '#deploys')).toMatchObject({ ts: '1.2' });
    expect(await store.claim(failed, '#deploys')).toBe(true);
  });
});
