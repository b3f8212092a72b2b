import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HostRequest } from '../../../lib/deployments/deployment-request.js';
import { deploymentIdOf } from '../../../lib/deployments/deployment-request.js';
import { callHost, type HostCallBudget, HostCallError } from '../../../lib/http/host-call.js';
import { type DeploymentsDouble, startDeploymentsApi } from '../../helpers/deployments-api.js';

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

describe('one Git host API call over HTTP (statuses, deployments, check runs)', () => {
  let api: DeploymentsDouble;
  beforeAll(async () => {
    api = await startDeploymentsApi({ gitlabToken: 'unused' });
  });
  afterEach(() => {
    api.requests.length = 0;
    waits.length = 0;
  });
  afterAll(async () => {
    await api.close();
  });

  const path = '/github/repos/org/gitops/deployments';
  const create = (): HostRequest => ({
    method: 'POST',
    url: `${api.githubApi}/repos/org/gitops/deployments`,
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ ref: 'a'.repeat(40), environment: 'hub', required_contexts: [] }),
  });

  it('returns the JSON answer, whose id names the deployment', async () => {
    const answer = await callHost(create(), { budget });
    expect(deploymentIdOf(answer)).toMatch(/^\d+$/);
  });

  it('retries 429 after its Retry-After and 5xx after the backoff, then succeeds', async () => {
    api.answer(`POST ${path}`, [{ status: 429, headers: { 'Retry-After': '2' } }, { status: 503 }]);
    const answer = await callHost(create(), { budget });
    expect(deploymentIdOf(answer)).toBeDefined();
    expect(waits).toEqual([2000, 20]);
    expect(api.requests).toHaveLength(3);
  });

  it('gives up after the attempts, naming the HTTP status only', async () => {
    api.answer(`POST ${path}`, [{ status: 502 }, { status: 502 }, { status: 502 }]);
    const error = await callHost(create(), { budget }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostCallError);
    expect((error as Error).message).toBe('HTTP 502');
    expect(api.requests).toHaveLength(3);
  });

  it('does not retry a 4xx, and never follows a redirect', async () => {
    api.answer(`POST ${path}`, { status: 401 });
    await expect(callHost(create(), { budget })).rejects.toThrow('HTTP 401');
    expect(api.requests).toHaveLength(1);
    api.answer(`POST ${path}`, { status: 307, headers: { Location: 'https://elsewhere.example/' } });
    await expect(callHost(create(), { budget })).rejects.toThrow(/redirect refused/);
    expect(api.requests).toHaveLength(2);
  });

  it('bounds each attempt in time: a host that does not answer is given up', async () => {
    api.answer(`POST ${path}`, [{ delayMs: 1_000 }, { delayMs: 1_000 }]);
    const error = await callHost(create(), { budget: { ...budget, timeoutMs: 50, maxAttempts: 2 } }).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toBe('no answer within 50 ms');
    expect(String(error)).not.toContain(TOKEN);
  });
});
