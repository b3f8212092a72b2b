import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StatusRequest } from '../../../lib/commit-status/host-request.js';
import { postStatus } from '../../../lib/commit-status/post-status.js';
import { type HostCallBudget, HostCallError } from '../../../lib/http/host-call.js';
import { type ProviderApiDouble, startProviderApi } from '../../helpers/git-provider-api.js';

const SHA = 'c'.repeat(40);
const TOKEN = 'ghp_never-in-an-error';
const waits: number[] = [];
const budget: HostCallBudget = {
  maxAttempts: 3,
  maxWaitMs: 3_000,
  backoffMs: 10,
  timeoutMs: 2_000,
  sleep: async (ms) => {
    waits.push(ms);
  },
};

describe('posting a commit status over HTTP', () => {
  let api: ProviderApiDouble;
  let other: ProviderApiDouble;
  beforeAll(async () => {
    api = await startProviderApi();
    other = await startProviderApi();
  });
  afterEach(() => {
    api.requests.length = 0;
    other.requests.length = 0;
    waits.length = 0;
  });
  afterAll(async () => {
    await api.close();
    await other.close();
  });

  const path = `/github/repos/org/gitops/statuses/${SHA}`;
  const request = (): StatusRequest => ({
    url: `${api.url}${path}`,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({
      state: 'pending',
      context: 'gitops-sync',
      description: '0/1 synced, 1 refreshed',
    }),
  });

  it('is taken by the GitHub double', async () => {
    await postStatus(request(), { budget });
    expect(api.statuses.at(-1)).toMatchObject({ sha: SHA, state: 'pending', context: 'gitops-sync' });
  });

  it('waits as long as Retry-After says after a 429, then posts', async () => {
    api.answer(path, [
      { status: 429, headers: { 'Retry-After': '2' } },
      { status: 201, body: {} },
    ]);
    await postStatus(request(), { budget });
    expect(waits).toEqual([2000]);
    expect(api.requests).toHaveLength(2);
  });

  it('retries a 5xx a bounded number of times, then gives up with the status only', async () => {
    api.answer(path, { status: 502 });
    const error = await postStatus(request(), { budget }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostCallError);
    expect((error as Error).message).toBe('HTTP 502');
    expect(api.requests).toHaveLength(3);
  });

  it('gives up at once when Retry-After is beyond the budget', async () => {
    api.answer(path, { status: 429, headers: { 'Retry-After': '3600' } });
    await expect(postStatus(request(), { budget })).rejects.toThrow('HTTP 429');
    expect(api.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('does not retry a 401 and never puts the token in the error', async () => {
    api.answer(path, { status: 401, body: { message: `bad credentials ${TOKEN}` } });
    const error = (await postStatus(request(), { budget }).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe('HTTP 401');
    expect(JSON.stringify({ message: error.message, stack: error.stack })).not.toContain(TOKEN);
    expect(api.requests).toHaveLength(1);
  });

  it('refuses a redirect: the token never reaches the other origin', async () => {
    api.answer(path, { status: 307, headers: { Location: `${other.url}/steal` } });
    await expect(postStatus(request(), { budget })).rejects.toThrow(/redirect refused/);
    expect(other.requests).toHaveLength(0);
    expect(api.requests).toHaveLength(1);
  });
});
