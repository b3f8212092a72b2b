import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { chromium } from 'playwright-core';
import type { AppRecord } from '../lib/rollouts/app-model.js';
import type { Rollout } from '../lib/rollouts/rollout-model.js';
import type { AppState } from '../lib/rollouts/state-model.js';
import { renderRolloutPage } from '../lib/ui/rollout-page.js';
import { stats } from './measure.js';
import type { BenchOptions, Metric } from './report.js';

/** Debian's package; the bench never lets a tool download a browser. */
const CHROMIUM = '/usr/bin/chromium';

/**
 * The rollout page at fleet sizes (issue 19: a 1,000-app rollout renders in under a second in Chromium):
 * the server's render (CPU) and, in Debian's Chromium, navigation start → `load` of the served page (parse,
 * style, layout, first paint included), median and p99 over repeated loads.
 */
export async function benchPage(options: BenchOptions): Promise<Metric[]> {
  const sizes = options.quick ? [1000] : [1000, 5000];
  const loads = options.quick ? 3 : 10;
  const metrics: Metric[] = [];
  const profile = await mkdtemp(join(tmpdir(), 'gitops-sync-bench-chromium-'));
  let body = '';
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
  try {
    for (const apps of sizes) {
      const rollout = fleetRollout(apps);
      const renders: number[] = [];
      for (let i = 0; i < loads; i++) {
        const start = performance.now();
        body = renderRolloutPage(rollout, { nonce: 'bench', argocdUrls: {}, now: new Date() });
        renders.push(performance.now() - start);
      }
      const page = await context.newPage();
      const loaded: number[] = [];
      for (let i = 0; i < loads; i++) {
        await page.goto(`http://127.0.0.1:${port}/ui/rollouts/${rollout.sha}?n=${i}`, { waitUntil: 'load' });
        loaded.push(
          await page.evaluate(
            // Runs in the page: the navigation entry's start → load event end.
            'performance.getEntriesByType("navigation")[0].loadEventEnd',
          ),
        );
      }
      await page.close();
      const size = `${apps.toLocaleString('en')} apps`;
      const r = stats(renders);
      const l = stats(loaded);
      metrics.push(
        { scenario: 'page', metric: `${size}: server render, median`, value: r.p50, unit: 'ms' },
        {
          scenario: 'page',
          metric: `${size}: Chromium navigation → load, median`,
          value: l.p50,
          unit: 'ms',
          ...(apps === 1000 ? { target: { max: 1000 } } : {}),
          note: `${(Buffer.byteLength(body) / 1024).toFixed(0)} KB of HTML`,
        },
        {
          scenario: 'page',
          metric: `${size}: Chromium navigation → load, p99`,
          value: l.p99,
          unit: 'ms',
          ...(apps === 1000 ? { target: { max: 1000 } } : {}),
        },
      );
    }
  } finally {
    await context.close();
    server.close();
    await rm(profile, { recursive: true, force: true });
  }
  return metrics;
}

/** A realistic mix: most synced, some failed with Argo CD's per-resource reasons, some blocked on secrets, over 3 waves. */
function fleetRollout(apps: number): Rollout {
  const clusters = Array.from({ length: 50 }, (_, i) => `prod-${String(i).padStart(2, '0')}`);
  const records: AppRecord[] = [];
  for (let i = 0; i < apps; i++) {
    const cluster = clusters[i % clusters.length] ?? 'prod-00';
    const state: AppState =
      i % 50 === 7 ? 'failed' : i % 97 === 3 ? 'blocked' : i % 13 === 5 ? 'refreshed' : 'synced';
    records.push({
      cluster: 'hub',
      destination: cluster,
      namespace: 'argocd',
      name: `app-${i}`,
      kind: 'Application',
      state,
      ...(state === 'failed'
        ? {
            message: 'one or more synchronization tasks completed unsuccessfully',
            failures: [
              {
                kind: 'Deployment',
                name: `app-${i}`,
                namespace: 'team',
                status: 'SyncFailed',
                message: `admission webhook "validate.kyverno.svc" denied the request: image tag latest is not allowed (${i % 5})`,
              },
            ],
          }
        : {}),
      ...(state === 'blocked'
        ? {
            secrets: [
              {
                externalSecret: `team/app-${i}-db`,
                field: 'spec.data[0]',
                outcome: 'missing-secret',
                key: 'gitops-sync/prod/db',
                store: 'aws',
                blocking: true,
              },
            ],
          }
        : {}),
    });
  }
  return {
    sha: 'e'.repeat(40),
    repo: 'org/gitops',
    repoUrl: 'https://github.com/org/gitops',
    ref: 'refs/heads/main',
    refs: ['refs/heads/main'],
    trigger: 'webhook',
    receivedAt: new Date(Date.now() - 120_000).toISOString(),
    status: 'partial',
    counts: {},
    decisions: {},
    apps: records,
  };
}
