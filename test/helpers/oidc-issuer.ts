import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import Provider from 'oidc-provider';

/** A person of the test issuer: the login typed on its sign-in form picks one by its id. */
export interface TestPerson {
  readonly email: string;
  readonly groups?: readonly string[];
}

/** A port free on loopback now (for a server whose address must be known before it starts). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * A loopback port held by a listener that drops every connection at once: a provider that is down, whose
 * port no other test's server can take meanwhile (a port only probed free can be handed to another
 * listener while the test waits; discovery then reads that server's 404 and refuses instead of 503).
 */
export async function heldPort(): Promise<{ readonly port: number; release(): Promise<void> }> {
  const holder = createTcpServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const { port } = holder.address() as AddressInfo;
  return { port, release: () => new Promise<void>((resolve) => holder.close(() => resolve())) };
}

export interface TestIssuer {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  close(): Promise<void>;
}

/**
 * A certified OpenID provider (`oidc-provider`) on loopback: one confidential client whose redirect URI is
 * `{redirectBase}/ui/callback`, and its development sign-in form (any password; the login names a person).
 */
export async function startTestIssuer(options: {
  readonly redirectUri: string;
  /** Default: any free port. */
  readonly port?: number;
  readonly people: Readonly<Record<string, TestPerson>>;
}): Promise<TestIssuer> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'gitops-sync-test';
  const clientSecret = 'test-client-secret-not-a-real-one';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    cookies: { keys: ['test-issuer-cookie-key'] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    claims: { email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    // The claims in the ID token itself (as Cognito, Okta, Entra ID and Dex send them).
    conformIdTokenClaims: false,
    async findAccount(_ctx, id) {
      const person = options.people[id];
      if (person === undefined) return undefined;
      return {
        accountId: id,
        async claims() {
          return {
            sub: id,
            email: person.email,
            email_verified: true,
            name: id,
            ...(person.groups === undefined ? {} : { groups: [...person.groups] }),
          };
        },
      };
    },
  });
  server.on('request', provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
