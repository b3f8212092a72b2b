import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClientNodeClusterApi } from '../../../lib/kubernetes/client-node-cluster-api.js';
import { KubernetesApiError } from '../../../lib/kubernetes/kube-error.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import { type LoopbackHttp, startLoopbackHttp } from '../../helpers/loopback-http.js';

// The cluster client bounds each exchange, answer body included, with a timer of its own (no AbortSignal per
// request): a server that stalls before its headers or in the middle of its body fails the call as a
// retryable timeout, and a quiet PATCH reads its answer past without keeping it.

type Behaviour = 'ok' | 'stall-headers' | 'stall-body';

const APP = {
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Application',
  metadata: { name: 'web', namespace: 'argocd', resourceVersion: '7', uid: 'u-1' },
  spec: { project: 'default' },
  status: { pad: 'x'.repeat(20_000) },
};

describe('cluster requests against a server that stalls', () => {
  let behaviour: Behaviour = 'ok';
  let server: LoopbackHttp;
  let url = '';

  beforeAll(async () => {
    server = await startLoopbackHttp((request: IncomingMessage, response: ServerResponse) => {
      request.resume();
      request.on('end', () => {
        if (behaviour === 'stall-headers') return;
        const body = JSON.stringify(
          request.url?.includes('/applications?') || request.url?.endsWith('/applications')
            ? { kind: 'ApplicationList', metadata: { resourceVersion: '9' }, items: [APP] }
            : APP,
        );
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        });
        if (behaviour === 'stall-body') response.write(body.slice(0, 1000));
        else response.end(body);
      });
    });
    url = server.url;
  });
  afterAll(() => server?.close());
  beforeEach(() => {
    behaviour = 'ok';
  });

  const api = () =>
    createClientNodeClusterApi({
      cluster: 'hub',
      timeoutMs: 300,
      access: { access: async () => ({ server: url, token: 't' }), invalidate: () => undefined },
    });

  it('fails a server silent before its headers as a retryable timeout, after the bound', async () => {
    behaviour = 'stall-headers';
    const started = Date.now();
    const error = await api()
      .get(APPLICATIONS, 'argocd', 'web')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesApiError);
    expect((error as KubernetesApiError).message).toBe(
      'cluster hub: get applications.argoproj.io argocd/web: timed out after 300 ms',
    );
    expect((error as KubernetesApiError).retryable).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('fails a body that stops halfway as a timeout too, not as a parse error or a hang', async () => {
    behaviour = 'stall-body';
    const error = await api()
      .list(APPLICATIONS, 'argocd')
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'cluster hub: list applications.argoproj.io argocd: timed out after 300 ms',
    );
    expect((error as KubernetesApiError).retryable).toBe(true);
  });

  it('a quiet PATCH whose 200 body stops halfway still counts as applied (the server answered 200)', async () => {
    behaviour = 'stall-body';
    await expect(
      api().mergePatchQuiet(APPLICATIONS, 'argocd', 'web', { metadata: { annotations: { a: 'b' } } }),
    ).resolves.toBeUndefined();
  });

  it('reads whole answers within the bound, and the kept-alive socket serves every later call', async () => {
    const client = api();
    const before = server.connections();
    for (let i = 0; i < 5; i++) {
      await client.mergePatchQuiet(APPLICATIONS, 'argocd', 'web', {
        metadata: { annotations: { a: `${i}` } },
      });
      expect((await client.get(APPLICATIONS, 'argocd', 'web')).metadata?.name).toBe('web');
    }
    // Past the bound of the calls above, the same socket still serves: their bounds ended with them.
    await new Promise((r) => setTimeout(r, 400));
    await expect(client.list(APPLICATIONS, 'argocd')).resolves.toMatchObject({
      items: [{ kind: 'Application' }],
    });
    expect(server.connections() - before).toBe(1);
  });
});
