import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArgoCdApi } from '../../../lib/argocd-api/argocd-api.js';

/** A private CA and a server certificate for 127.0.0.1, made with the system's openssl. */
async function privateCa(dir: string): Promise<{ ca: string; key: string; cert: string }> {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '1',
    '-subj',
    '/CN=argocd-test-ca',
  );
  ssl('req', ...ec, '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', '/CN=127.0.0.1');
  await writeFile(join(dir, 'ext'), 'subjectAltName=IP:127.0.0.1\n');
  ssl(
    'x509',
    '-req',
    '-in',
    'srv.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'srv.pem',
    '-days',
    '1',
    '-extfile',
    'ext',
  );
  const read = (name: string) => readFile(join(dir, name), 'utf8');
  return { ca: await read('ca.pem'), key: await read('srv.key'), cert: await read('srv.pem') };
}

describe('the Argo CD API client over TLS with argocdCaData', () => {
  let dir: string;
  let server: Server;
  let url: string;
  let ca: string;
  let connections = 0;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argocd-tls-'));
    const pki = await privateCa(dir);
    ca = pki.ca;
    server = createServer({ key: pki.key, cert: pki.cert }, (_, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ manifests: ['{"kind":"ConfigMap","metadata":{"name":"c"}}'] }));
    });
    server.on('connection', () => {
      connections++;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const query = { name: 'a', appNamespace: 'argocd' };

  it('trusts the server certificate signed by the CA it was given', async () => {
    const api = createArgoCdApi({ url, token: async () => 't', caData: Buffer.from(ca).toString('base64') });
    expect((await api.manifests(query)).documents).toHaveLength(1);
  });

  it('refuses the same server without that CA, naming the TLS error and trying only once', async () => {
    const before = connections;
    const api = createArgoCdApi({ url, token: async () => 't', backoffMs: 1 });
    await expect(api.manifests(query)).rejects.toThrow(
      /connection failed \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)/,
    );
    // A certificate that fails once fails every time: one connection, no retries.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(connections - before).toBe(1);
  });
});
