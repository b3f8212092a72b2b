import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubPush } from '../../../infra/local/sample-push.js';
import { LOCAL_GITHUB_SECRET } from '../../../infra/local/stack.js';
import { defaultPush } from '../../../infra/simulator/default-push.js';
import type { Rollout } from '../../../lib/rollouts/rollout-model.js';
import { renderRolloutPage } from '../../../lib/ui/rollout-page.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';

const API_TOKEN = 'browser-test-token';
/** `UPDATE_SCREENSHOTS=1 npx vitest run test/integration/ui` refreshes the README's picture. */
const SCREENSHOT =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? join(import.meta.dirname, '../../../docs/rollout-page.png')
    : join(tmpdir(), `gitops-sync-rollout-page-${process.pid}.png`);
/** Debian's package; the test never lets a tool download a browser. */
const CHROMIUM = '/usr/bin/chromium';

/** The page's document, typed just enough (the test compiles without the DOM library; runs in the page). */
interface PageDocument {
  querySelector(
    selector: string,
  ): { getAttribute(name: string): string | null; textContent: string | null } | null;
}

describe('the rollout page in a real browser (Debian chromium, playwright-core)', () => {
  let stack: TestStack;
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    // Slow enough syncs that the page is seen before and after an app ends.
    stack = await startTestStack(
      { API_TOKEN, TRACK_DEADLINE_SECONDS: '90' },
      {
        controller: { tickMs: 100, syncMs: 2500, healthMs: 1000, retryMs: 1000 },
        fleetOverlay: (fleet) => ({
          ...fleet,
          clusters: fleet.clusters.map((c) =>
            c.name === 'hub' ? { ...c, argocdUrl: 'https://argocd.hub.example' } : c,
          ),
        }),
      },
    );
    profile = await mkdtemp(join(tmpdir(), 'gitops-sync-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1500, height: 900 },
    });
  }, 90_000);
  afterAll(async () => {
    await context?.close();
    await stack?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  it('shows each app state and updates the grid in place as the rollout moves', async () => {
    const world = stack.world;
    if (world === undefined) throw new Error('no simulated world');
    const push = defaultPush();
    const commit = await world.commit(push.repository, push.changes, push.message, push.branch);
    const delivery = githubPush(
      {
        repoUrl: world.repoUrl('platform'),
        fullName: 'example/platform',
        branch: push.branch,
        before: commit.before,
        after: commit.after,
        changed: commit.changed,
        message: push.message,
      },
      LOCAL_GITHUB_SECRET,
    );
    expect((await stack.post('/webhooks/github', delivery)).status).toBe(202);
    const sha = commit.after;

    // Fan-out records the rollout a moment after the 202.
    await expect
      .poll(
        async () =>
          (await fetch(`${stack.url}/rollouts/${sha}`, { headers: { authorization: `Bearer ${API_TOKEN}` } }))
            .status,
        { timeout: 20_000 },
      )
      .toBe(200);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    // Sign in once: the token becomes a cookie and leaves the address.
    await page.goto(`${stack.url}/ui/rollouts/${sha.slice(0, 7)}?token=${API_TOKEN}`);
    expect(new URL(page.url()).search).toBe('');
    await page.evaluate(() => {
      (globalThis as unknown as { loadedOnce: boolean }).loadedOnce = true;
    });

    // Read through plain DOM calls (Playwright's own locators add inline styles the page's CSP reports).
    const attribute = (selector: string, name: string) =>
      page.evaluate(
        ([sel, attr]) =>
          (globalThis as unknown as { document: PageDocument }).document
            .querySelector(sel as string)
            ?.getAttribute(attr as string) ?? null,
        [selector, name],
      );
    const state = (app: string) => attribute(`[data-app="${app}"]`, 'data-state');
    await expect.poll(() => state('hub/argocd/web-spoke-a'), { timeout: 20_000 }).not.toBeNull();
    expect(['matched', 'refreshed', 'syncing']).toContain(await state('hub/argocd/web-spoke-a'));
    expect(await attribute('#live', 'data-running')).toBe('true');

    // No reload: the page's own script swaps the grid in until the rollout ends.
    await expect
      .poll(() => state('hub/argocd/web-spoke-a'), { timeout: 60_000, interval: 200 })
      .toBe('synced');
    await expect
      .poll(() => attribute('#live', 'data-running'), { timeout: 60_000, interval: 200 })
      .toBe('false');
    expect(await page.evaluate(() => (globalThis as unknown as { loadedOnce?: boolean }).loadedOnce)).toBe(
      true,
    );

    expect(await state('hub/argocd/web-spoke-b')).toBe('blocked');
    expect(await state('hub/argocd/web-canary')).toBe('degraded');
    expect(await state('spoke-c/argocd/web-e2e')).toBe('failed');
    expect(await state('spoke-c/argocd/web-dr')).toBe('out-of-sync');
    expect(await attribute('h1 [data-status]', 'data-status')).toBe('partial');
    expect(await attribute('[data-app="hub/argocd/web-spoke-a"] a', 'href')).toBe(
      'https://argocd.hub.example/applications/argocd/web-spoke-a',
    );
    expect(
      await page.evaluate(
        () =>
          (globalThis as unknown as { document: PageDocument }).document.querySelector(
            '[data-app="spoke-c/argocd/web-e2e"] .reasons',
          )?.textContent ?? '',
      ),
      // Argo CD's per-resource reason, not its generic "one or more synchronization tasks …".
    ).toContain('admission webhook denied the request');
    expect(errors).toEqual([]);
    expect((await page.screenshot({ path: SCREENSHOT, fullPage: true })).length).toBeGreaterThan(10_000);

    // The list page links to the rollout.
    await page.goto(`${stack.url}/ui/`);
    expect(await page.locator(`tr[data-sha="${sha}"] [data-status]`).getAttribute('data-status')).toBe(
      'partial',
    );
  }, 120_000);

  it('lays a halted wave rollout out by wave and destination (a fixture, rendered and parsed by the browser)', async () => {
    const app = (name: string, destination: string, wave: string, state: 'synced' | 'failed' | 'held') => ({
      cluster: 'hub',
      namespace: 'argocd',
      name,
      kind: 'Application' as const,
      state,
      destination,
      wave,
      ...(state === 'held' ? { message: 'wave rest waits for prod-eu' } : {}),
    });
    const fixture: Rollout = {
      sha: 'c'.repeat(40),
      repo: 'org/gitops',
      repoUrl: 'https://github.com/org/gitops',
      ref: 'refs/heads/main',
      refs: ['refs/heads/main'],
      trigger: 'webhook',
      receivedAt: '2026-12-01T09:50:00.000Z',
      status: 'halted',
      counts: {},
      decisions: {},
      apps: [
        app('web-staging', 'staging', 'canary', 'synced'),
        app('web-eu', 'prod-eu-1', 'prod-eu', 'failed'),
        app('web-us', 'prod-us', 'rest', 'held'),
      ],
      waves: [
        { name: 'canary', state: 'done', clusters: ['staging'] },
        { name: 'prod-eu', state: 'halted', clusters: ['prod-eu-1'], reason: '1 failed' },
        { name: 'rest', state: 'waiting', clusters: ['prod-us'] },
      ],
      ungated: [{ cluster: 'hub', namespace: 'argocd', reason: 'polls Git' }],
    };
    const html = renderRolloutPage(fixture, {
      nonce: 'n',
      argocdUrls: {},
      now: new Date('2026-12-01T10:00:00Z'),
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.setContent(html);
    const read = (selector: string, attribute: string) =>
      page.evaluate(
        ([sel, attr]) =>
          [
            ...(
              globalThis as unknown as {
                document: {
                  querySelectorAll(s: string): Iterable<{ getAttribute(n: string): string | null }>;
                };
              }
            ).document.querySelectorAll(sel as string),
          ].map((e) => e.getAttribute(attr as string)),
        [selector, attribute],
      );
    expect(await read('section.wave', 'data-wave-state')).toEqual(['done', 'halted', 'waiting']);
    expect(await read('section.wave[data-wave="prod-eu"] [data-app]', 'data-state')).toEqual(['failed']);
    expect(await read('.dest', 'data-destination')).toEqual(['staging', 'prod-eu-1', 'prod-us']);
    expect(await read('[data-control]', 'data-control')).toEqual(['halted']);
    expect(await read('[data-ungated]', 'data-ungated')).toEqual(['1']);
    expect(await read('#live', 'data-running')).toEqual(['false']);
    expect(errors).toEqual([]);
    await page.close();
  });
});
