import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpRequest } from '../../../lib/http/request.js';
import type { HttpResponse } from '../../../lib/http/response.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { parseAllowList } from '../../../lib/ui-auth/allow-list.js';
import { type OidcUiDeps, oidcUi } from '../../../lib/ui-auth/login-routes.js';
import { memoryLoginStates } from '../../../lib/ui-auth/login-states.js';
import { oidcProvider } from '../../../lib/ui-auth/oidc-provider.js';
import { cookieKeys } from '../../../lib/ui-auth/sealed-cookie.js';
import { freePort, startTestIssuer, type TestIssuer } from '../../helpers/oidc-issuer.js';

const PUBLIC_URL = 'https://gitops-sync.example.com';
const keys = cookieKeys('a-test-session-secret-of-at-least-32-characters');

function get(path: string, query: Record<string, string> = {}, cookie?: string): HttpRequest {
  return {
    method: 'GET',
    path,
    headers: cookie === undefined ? {} : { cookie },
    query,
    pathParameters: {},
    body: Buffer.alloc(0),
  };
}

function deps(issuer: string, clientSecret?: string): OidcUiDeps {
  return {
    settings: { allowed: parseAllowList('@example.com') },
    provider: oidcProvider({
      issuer,
      clientId: 'gitops-sync-test',
      clientSecret: async () => clientSecret,
      timeoutSeconds: 1,
    }),
    states: memoryLoginStates(),
    keys: async () => keys,
    publicUrl: () => PUBLIC_URL,
    logger: createMemoryLogger(),
  };
}

const ui = (rest: string[], request: HttpRequest, d: OidcUiDeps) =>
  oidcUi(
    rest,
    request,
    d,
    async (): Promise<HttpResponse> => ({ statusCode: 200, headers: {}, body: 'page' }),
  );

describe('the login when the provider is down, slow or refuses', () => {
  let silent: Server;
  let silentUrl: string;
  let issuer: TestIssuer;

  beforeAll(async () => {
    // Accepts connections and never answers: a provider that hangs.
    silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    issuer = await startTestIssuer({
      redirectUri: `${PUBLIC_URL}/ui/callback`,
      people: { alice: { email: 'alice@example.com' } },
    });
  });
  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
    await issuer.close();
  });

  it('answers 503 with a page when discovery hangs, after its timeout, and does not crash', async () => {
    const answer = await ui(['login'], get('/ui/login'), deps(silentUrl));
    expect(answer.statusCode).toBe(503);
    expect(answer.headers['content-type']).toContain('text/html');
    expect(answer.body).toContain('did not answer (discovery)');
  });

  it('answers 503 when nothing listens at the issuer', async () => {
    const answer = await ui(['login'], get('/ui/login'), deps(`http://127.0.0.1:${await freePort()}`));
    expect(answer.statusCode).toBe(503);
  });

  it('answers 401 when the provider refuses the code, and 503 when its token endpoint is gone', async () => {
    const d = deps(issuer.issuer, issuer.clientSecret);
    const start = async () => {
      const login = await ui(['login'], get('/ui/login'), d);
      expect(login.statusCode).toBe(302);
      const state = new URL(login.headers.location ?? '').searchParams.get('state') ?? '';
      const cookie = (login.headers['set-cookie'] ?? '').split(';')[0] ?? '';
      return { state, cookie };
    };
    const first = await start();
    const refused = await ui(
      ['callback'],
      get(
        '/ui/callback',
        { code: 'a-code-the-provider-never-issued', state: first.state, iss: issuer.issuer },
        first.cookie,
      ),
      d,
    );
    expect(refused.statusCode).toBe(401);
    expect(refused.body).toContain('refused the login (invalid_grant)');

    const second = await start();
    await issuer.close();
    const gone = await ui(
      ['callback'],
      get('/ui/callback', { code: 'any', state: second.state, iss: issuer.issuer }, second.cookie),
      d,
    );
    expect(gone.statusCode).toBe(503);
  });

  it('refuses a callback whose state is not the one its login cookie holds', async () => {
    const d = deps(silentUrl);
    const other = await ui(['callback'], get('/ui/callback', { code: 'c', state: 'guessed' }), d);
    expect(other.statusCode).toBe(400);
  });
});
