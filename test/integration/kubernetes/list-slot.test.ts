import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLimiter, type Limiter } from '../../../lib/concurrency.js';
import { createClientNodeClusterApi } from '../../../lib/kubernetes/client-node-cluster-api.js';
import { KubernetesApiError } from '../../../lib/kubernetes/kube-error.js';
import { listAllPages } from '../../../lib/kubernetes/list-pages.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import { type LoopbackHttp, startLoopbackHttp } from '../../helpers/loopback-http.js';

// A process bounds the LIST answers it reads at once (`LIST_PAGES_IN_FLIGHT`), but the slot is taken once
// the API server has answered: the servers' time to answer overlaps, the bodies are read (and slimmed) one
// slot at a time, and a body waiting for its slot is not read off the socket.

const app = (name: string, pad = 0) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Application',
  metadata: { name, namespace: 'argocd', resourceVersion: '7', uid: `u-${name}` },
  spec: { project: 'default' },
  status: { pad: 'x'.repeat(pad) },
});

type Answer = (request: IncomingMessage, response: ServerResponse) => void;

describe('a LIST slot taken once the server answers', () => {
  let answer: Answer = () => undefined;
  let server: LoopbackHttp;
  let url = '';

  beforeAll(async () => {
    server = await startLoopbackHttp((request, response) => {
      request.resume();
      request.on('end', () => answer(request, response));
    });
    url = server.url;
  });
  afterAll(() => server?.close());
  beforeEach(() => server.dropConnections());

  const api = (timeoutMs = 5_000) =>
    createClientNodeClusterApi({
      cluster: 'hub',
      timeoutMs,
      access: { access: async () => ({ server: url, token: 't' }), invalidate: () => undefined },
    });
  const list = (body: object) => JSON.stringify({ kind: 'ApplicationList', metadata: {}, ...body });

  /** A limiter of one that counts how many hold it at once (never more than one). */
  const counted = () => {
    const inner = createLimiter(1);
    let active = 0;
    let most = 0;
    const slot: Limiter = (fn) =>
      inner(async () => {
        active++;
        most = Math.max(most, active);
        try {
          return await fn();
        } finally {
          active--;
        }
      });
    return { slot, most: () => most };
  };

  it("lets four listings' servers work at once while their bodies are read one at a time", async () => {
    // The server answers none until it holds all four requests (or gives up after 3 s): with the slot held
    // around the whole request it would see one at a time.
    const waiting: ServerResponse[] = [];
    let mostWaiting = 0;
    answer = (_request, response) => {
      waiting.push(response);
      mostWaiting = Math.max(mostWaiting, waiting.length);
      const flush = () => {
        for (const r of waiting.splice(0)) {
          r.writeHead(200, { 'content-type': 'application/json' });
          r.end(list({ items: [app('web')] }));
        }
      };
      if (waiting.length === 4) flush();
      else setTimeout(flush, 3_000).unref();
    };
    const { slot, most } = counted();
    const client = api();
    const slimmed: string[] = [];
    const lists = await Promise.all(
      Array.from({ length: 4 }, () =>
        listAllPages(client, APPLICATIONS, 'argocd', {
          limit: 500,
          pages: slot,
          slim: (o) => {
            slimmed.push(o.metadata.name);
            return { metadata: { name: o.metadata.name } };
          },
        }),
      ),
    );
    expect(mostWaiting).toBe(4);
    expect(most()).toBe(1);
    expect(slimmed).toEqual(['web', 'web', 'web', 'web']);
    expect(lists.map((l) => l.map((o) => Object.keys(o)))).toEqual([
      [['metadata']],
      [['metadata']],
      [['metadata']],
      [['metadata']],
    ]);
  });

  it('leaves a body waiting for its slot on the socket: the server cannot finish writing it', async () => {
    // 24 MB: more than loopback's socket buffers take, so the server's write ends only once it is read.
    const body = list({ items: [app('big', 24 * 1024 * 1024)] });
    let finished = false;
    let headersSent!: () => void;
    const sent = new Promise<void>((resolve) => {
      headersSent = resolve;
    });
    answer = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.on('finish', () => {
        finished = true;
      });
      response.end(body);
      headersSent();
    };
    const slot = createLimiter(1);
    let release!: () => void;
    const held = slot(() => new Promise<void>((resolve) => (release = resolve)));
    const listing = api().list(APPLICATIONS, 'argocd', { slot, slim: (o) => ({ metadata: o.metadata }) });
    await sent;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(finished).toBe(false);
    release();
    await held;
    const page = await listing;
    expect(page.items.map((o) => [o.metadata.name, Object.keys(o)])).toEqual([['big', ['metadata']]]);
    expect(finished).toBe(true);
  });

  it('fails a listing whose connection dropped while it waited for its slot, retryable and without a crash', async () => {
    answer = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write(list({ items: [app('web')] }).slice(0, 40));
      setTimeout(() => response.socket?.destroy(), 50);
    };
    const slot = createLimiter(1);
    let release!: () => void;
    const held = slot(() => new Promise<void>((resolve) => (release = resolve)));
    const listing = api()
      .list(APPLICATIONS, 'argocd', { slot })
      .catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    await held;
    const error = await listing;
    expect(error).toBeInstanceOf(KubernetesApiError);
    expect((error as KubernetesApiError).retryable).toBe(true);
  });

  it('gives the body its whole bound again from when its read starts', async () => {
    // Headers at once, the body's end 1.3 s later; the slot is free after 0.6 s; the bound is 1 s. Counted
    // from the request the read would time out; counted again from the read's start it ends in time.
    answer = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const text = list({ items: [app('web')] });
      response.write(text.slice(0, 20));
      setTimeout(() => response.end(text.slice(20)), 1_300);
    };
    const slot = createLimiter(1);
    let release!: () => void;
    const held = slot(() => new Promise<void>((resolve) => (release = resolve)));
    const listing = api(1_000).list(APPLICATIONS, 'argocd', { slot });
    setTimeout(() => release(), 600);
    await held;
    await expect(listing).resolves.toMatchObject({ items: [{ metadata: { name: 'web' } }] });
  });
});
