import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import {
  commitDefaultChange,
  expectDefaultOutcome,
  patchesPerObject,
  resetRequestLogs,
  withManyFiles,
} from './support/default-change.js';

/**
 * Issue 21: a 30,000-file push through the in-process queue (the default local stack) must fan out as
 * it does through SQS. Its push message and each cluster's work item are far over SQS's 256 KiB and
 * travel as pointers to the payload store; the in-process queue refuses what SQS refuses.
 */
describe('a 30,000-file push through the in-process queue', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  }, 60_000);
  afterAll(async () => stack?.close());

  it('is accepted with its file list known, and refreshes exactly the apps the real change touched', async () => {
    resetRequestLogs(stack);
    const { after, delivery: plain } = await commitDefaultChange(stack, 'gh-30k-files');
    // 20 commits of 1,500 paths (GitHub cuts a commit's list at 3,000) and the real change.
    const delivery = withManyFiles(plain, 20, 1_500);
    expect(delivery.body.length).toBeGreaterThan(1_000_000);
    const answer = await stack.post('/webhooks/github', delivery);
    expect(answer).toMatchObject({ status: 202, body: { rollout: after } });
    const accepted = stack.logLines.find((l) => l.message === 'webhook accepted');
    expect(accepted?.fields?.changedFiles).toBeGreaterThanOrEqual(30_000);

    expectDefaultOutcome(await stack.rolloutWhenDone(after, 60_000));
    const patches = [...patchesPerObject(stack).entries()];
    expect(patches.length).toBeGreaterThan(0);
    expect(patches.filter(([, n]) => n !== 1)).toEqual([]);
    expect(stack.queues.push.deadLetters).toEqual([]);
  }, 120_000);
});
