import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { compareCommits } from '../../../lib/git/compare.js';
import { listRemoteRefs } from '../../../lib/git/remote-refs.js';
import { createRepoAllowList } from '../../../lib/git/repo-url.js';
import { createClientNodeClusterApi } from '../../../lib/kubernetes/client-node-cluster-api.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import { createSlackWebhook } from '../../../lib/notify/slack-webhook.js';

const TOKEN = 'glpat-redirect-canary-7f3a';

interface Recorded {
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
}

/** A loopback server; `answer` decides each response, `requests` records what arrived. */
async function loopback(
  answer: (request: IncomingMessage) => { status: number; headers?: Record<string, string>; body?: string },
): Promise<{ url: string; requests: Recorded[]; close: () => Promise<void> }> {
  const requests: Recorded[] = [];
  const server: Server = createServer((request, response) => {
    requests.push({ url: request.url ?? '', headers: request.headers });
    request.resume();
    const { status, headers, body } = answer(request);
    response.writeHead(status, headers);
    response.end(body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Whether any recorded request carried the token: in any header (Basic auth decoded) or the URL. */
const tokenArrived = (requests: readonly Recorded[]) =>
  requests.some((r) => {
    const basic = /^Basic (.+)$/.exec(r.headers.authorization ?? '')?.[1];
    const decoded = basic === undefined ? '' : Buffer.from(basic, 'base64').toString('utf8');
    return JSON.stringify(r.headers).includes(TOKEN) || decoded.includes(TOKEN) || r.url.includes(TOKEN);
  });

describe.each([301, 302, 307, 308])(
  'a %i redirect to another origin never carries a credential',
  (status) => {
    let other: Awaited<ReturnType<typeof loopback>>;
    let redirecting: Awaited<ReturnType<typeof loopback>>;
    beforeAll(async () => {
      other = await loopback(() => ({
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }));
      redirecting = await loopback((request) =>
        // Git asks for credentials first (401), then redirects the authenticated request.
        request.url?.includes('info/refs') && request.headers.authorization === undefined
          ? { status: 401, headers: { 'www-authenticate': 'Basic realm="git"' } }
          : { status, headers: { location: `${other.url}${request.url ?? '/'}` } },
      );
    });
    afterAll(async () => {
      await Promise.all([other.close(), redirecting.close()]);
    });
    beforeEach(() => {
      other.requests.length = 0;
      redirecting.requests.length = 0;
    });

    it('the GitLab compare call refuses it and names the target origin, not the token', async () => {
      const result = await compareCommits({
        provider: 'gitlab',
        apiBaseUrl: `${redirecting.url}/api/v4`,
        repository: 'org/gitops',
        before: 'a'.repeat(40),
        after: 'b'.repeat(40),
        token: TOKEN,
      });
      expect(tokenArrived(redirecting.requests)).toBe(true); // the first origin did get it
      expect(other.requests).toEqual([]);
      expect(result).toEqual({
        known: false,
        reason: 'compare-failed',
        detail: `the API answered with a redirect (HTTP ${status}) to ${other.url} not followed: credentials are never sent on a redirect`,
      });
    });

    it('the GitHub compare call refuses it too', async () => {
      const result = await compareCommits({
        provider: 'github',
        apiBaseUrl: redirecting.url,
        repository: 'org/gitops',
        before: 'a'.repeat(40),
        after: 'b'.repeat(40),
        token: TOKEN,
      });
      expect(other.requests).toEqual([]);
      expect(result.known ? '' : result.detail).toContain(`to ${other.url} not followed`);
    });

    it('Git smart HTTP sends credentials after the 401, then refuses the redirect', async () => {
      const url = `${redirecting.url}/org/gitops.git`;
      const error = await listRemoteRefs(
        { url, auth: { username: 'x-access-token', password: TOKEN } },
        { allowList: createRepoAllowList([url]) },
      ).catch((e: unknown) => e as Error);
      expect(tokenArrived(redirecting.requests)).toBe(true);
      expect(other.requests).toEqual([]);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain(`redirect (HTTP ${status}) to ${other.url} not followed`);
      expect((error as Error).message).not.toContain(TOKEN);
    });

    it('a cluster call refuses it, so the bearer token never reaches the other server', async () => {
      const api = createClientNodeClusterApi({
        cluster: 'hub',
        timeoutMs: 5000,
        access: {
          access: async () => ({ server: redirecting.url, token: TOKEN }),
          invalidate: () => undefined,
        },
      });
      const error = await api.list(APPLICATIONS, 'argocd').catch((e: unknown) => e as Error);
      expect(tokenArrived(redirecting.requests)).toBe(true);
      expect(other.requests).toEqual([]);
      expect((error as Error).message).toBe(
        `cluster hub: list applications.argoproj.io argocd: redirect (HTTP ${status}) to ${other.url} not followed: credentials are never sent on a redirect`,
      );
    });

    it('the Slack incoming webhook (its URL is the credential) refuses it and sends nothing on', async () => {
      const webhook = createSlackWebhook({
        url: `${redirecting.url}/services/T0/B0/${TOKEN}`,
        retry: { maxAttempts: 1 },
      });
      await expect(webhook.send({ text: 'hello', blocks: [] })).rejects.toMatchObject({
        failure: 'rejected',
      });
      expect(other.requests).toEqual([]);
    });
  },
);
