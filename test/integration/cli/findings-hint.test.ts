import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';

const exec = promisify(execFile);
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

/** `gitops-sync findings` as a user runs it against the local stack's API. */
async function findings(): Promise<string> {
  const { stdout } = await exec(process.execPath, ['bin/gitops-sync.mjs', 'findings', '--url', stack.url], {
    env: { PATH: process.env.PATH ?? '' },
  });
  return stdout;
}

describe('gitops-sync findings before and after the first reconcile pass', () => {
  it('says no pass has run yet instead of an empty table, then names the last pass', async () => {
    const before = await stack.get('/findings');
    expect(before).toMatchObject({ status: 200, body: { items: [], lastReconcile: null } });
    const hint = await findings();
    expect(hint).toContain('no reconcile pass has run yet');
    expect(hint).toContain('RECONCILE_INTERVAL_SECONDS');

    const report = await stack.app.reconcile();
    const after = await stack.get('/findings');
    expect(after.status).toBe(200);
    const body = after.body as {
      items: unknown[];
      lastReconcile: { startedAt: string; clustersRead: number };
    };
    expect(body.lastReconcile.startedAt).toBe((report as { startedAt: string }).startedAt);
    expect(body.lastReconcile.clustersRead).toBeGreaterThan(0);
    const printed = await findings();
    expect(printed).not.toContain('no reconcile pass has run yet');
    // The simulated fleet's Git carries findings (a plaintext Secret among them): the table, not the hint.
    expect(body.items.length).toBeGreaterThan(0);
    expect(printed).toMatch(/^ {2}CLUSTER +APP +RULE/m);
  }, 120_000);
});
