import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { freePort, heldPort, startTestIssuer, type TestIssuer } from '../../helpers/oidc-issuer.js';

/** Debian's package; the test never lets a tool download a browser. */
const CHROMIUM = '/usr/bin/chromium';
const SESSION_SECRET = 'a-test-session-secret-of-at-least-32-characters';

const PEOPLE = {
  alice: { email: 'alice@example.com' },
  bob: { email: 'bob@elsewhere.io', groups: ['platform'] },
  mallory: { email: 'mallory@evil.example', groups: ['visitors'] },
};

interface PageDocument {
  querySelector(selector: string): { textContent: string | null } | null;
}

describe('the page login against a real OpenID provider (oidc-provider) in a real browser', () => {
  let stack: TestStack;
  let issuer: TestIssuer | undefined;
  let issuerPort: number;
  let releaseIssuerPort: () => Promise<void> = async () => {};
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  const fresh = async (): Promise<Page> => {
    const context = await browser.newContext();
    contexts.push(context);
    return context.newPage();
  };
  const heading = (page: Page) =>
    page.evaluate(
      () =>
        (globalThis as unknown as { document: PageDocument }).document.querySelector('h1')?.textContent ?? '',
    );
  /** The issuer's development sign-in form, then its consent page. */
  const signIn = async (page: Page, login: string) => {
    await page.waitForURL((url) => url.origin === issuer?.issuer);
    await page.fill('input[name=login]', login);
    await page.fill('input[name=password]', 'any password');
    await page.click('button[type=submit]');
    await page.waitForLoadState();
    if (new URL(page.url()).origin === issuer?.issuer) await page.click('button[type=submit]');
    await page.waitForURL((url) => url.origin === stack.url);
  };

  beforeAll(async () => {
    const held = await heldPort();
    issuerPort = held.port;
    releaseIssuerPort = held.release;
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    // The stack starts while the provider is still down (the first test), which discovery must survive.
    stack = await startTestStack({
      PORT: String(port),
      PUBLIC_URL: publicUrl,
      UI_AUTH: 'oidc',
      OIDC_ISSUER: `http://127.0.0.1:${issuerPort}`,
      OIDC_CLIENT_ID: 'gitops-sync-test',
      OIDC_CLIENT_SECRET: 'test-client-secret-not-a-real-one',
      OIDC_ALLOWED: 'alice@example.com, @corp.example, group:platform',
      UI_SESSION_SECRET: SESSION_SECRET,
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
  }, 60_000);
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await issuer?.close();
    await releaseIssuerPort();
    await stack?.close();
  });

  it('answers 503 with a page saying so while the provider is down, and signs in once it is up', async () => {
    const down = await fetch(`${stack.url}/ui/login?next=%2Fui%2F`, { redirect: 'manual' });
    expect(down.status).toBe(503);
    expect(await down.text()).toContain('did not answer');
    await releaseIssuerPort();
    issuer = await startTestIssuer({
      port: issuerPort,
      redirectUri: `${stack.url}/ui/callback`,
      people: PEOPLE,
    });
    const up = await fetch(`${stack.url}/ui/login?next=%2Fui%2F`, { redirect: 'manual' });
    expect(up.status).toBe(302);
    expect(up.headers.get('location')?.startsWith(`${issuer.issuer}/`)).toBe(true);
  });

  it('sends a page without a session to the login, keeping where it was going', async () => {
    const response = await fetch(`${stack.url}/ui/rollouts/abc1234?view=all`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(
      `/ui/login?next=${encodeURIComponent('/ui/rollouts/abc1234?view=all')}`,
    );
  });

  it('signs a person in the list in, shows the page, refuses the same answer twice, and signs out', async () => {
    const page = await fresh();
    let callback: string | undefined;
    page.on('request', (request) => {
      if (request.url().startsWith(`${stack.url}/ui/callback`)) callback = request.url();
    });
    await page.goto(`${stack.url}/ui/`);
    await signIn(page, 'alice');
    expect(new URL(page.url()).pathname).toBe('/ui/');
    expect(await page.title()).toContain('gitops-sync');
    expect(await heading(page)).toBe('Latest rollouts');

    const cookies = await page.context().cookies(`${stack.url}/ui/`);
    const session = cookies.find((c) => c.name === 'gitops_sync_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/ui', secure: false });
    // Sealed: neither the ID token nor any claim readable in it.
    expect(session?.value).not.toContain('alice');
    expect(session?.value.split('.')).toHaveLength(5);

    if (callback === undefined) throw new Error('the provider never called back');
    const replay = await page.goto(callback);
    expect(replay?.status()).toBe(401);
    expect(await page.content()).toContain('already used');

    const out = await page.goto(`${stack.url}/ui/logout`);
    expect(out?.status()).toBe(200);
    expect((await page.context().cookies(`${stack.url}/ui/`)).map((c) => c.name)).not.toContain(
      'gitops_sync_session',
    );
    const after = await page.context().request.get(`${stack.url}/ui/`, { maxRedirects: 0 });
    expect(after.status()).toBe(302);
    expect(after.headers().location).toBe('/ui/login?next=%2Fui%2F');
  });

  it('lets a member of an allowed group in and lands on the page it asked for', async () => {
    const page = await fresh();
    await page.goto(`${stack.url}/ui/?repo=example%2Fplatform`);
    await signIn(page, 'bob');
    const url = new URL(page.url());
    expect(`${url.pathname}${url.search}`).toBe('/ui/?repo=example%2Fplatform');
    expect(await heading(page)).toBe('Latest rollouts of example/platform');
  });

  it('answers 403 to a person the provider knows but the allow list does not', async () => {
    const page = await fresh();
    const answers: number[] = [];
    page.on('response', (response) => {
      if (response.url().startsWith(`${stack.url}/ui/callback`)) answers.push(response.status());
    });
    await page.goto(`${stack.url}/ui/`);
    await signIn(page, 'mallory');
    expect(answers).toEqual([403]);
    expect(await heading(page)).toBe('Not allowed');
    expect((await page.context().cookies(`${stack.url}/ui/`)).map((c) => c.name)).not.toContain(
      'gitops_sync_session',
    );
  });

  it('treats a tampered session cookie as no session', async () => {
    const page = await fresh();
    await page.goto(`${stack.url}/ui/`);
    await signIn(page, 'alice');
    const [session] = (await page.context().cookies(`${stack.url}/ui/`)).filter(
      (c) => c.name === 'gitops_sync_session',
    );
    if (session === undefined) throw new Error('no session cookie');
    const parts = session.value.split('.');
    const tampered = [...parts.slice(0, 3), `${parts[3]?.slice(0, -2)}AA`, parts[4]].join('.');
    const answer = await fetch(`${stack.url}/ui/`, {
      redirect: 'manual',
      headers: { cookie: `gitops_sync_session=${tampered}` },
    });
    expect(answer.status).toBe(302);
    const genuine = await fetch(`${stack.url}/ui/`, {
      redirect: 'manual',
      headers: { cookie: `gitops_sync_session=${session.value}` },
    });
    expect(genuine.status).toBe(200);
  });
});
