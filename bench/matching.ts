import { performance } from 'node:perf_hooks';
import { buildMatchIndex, type FleetObject } from '../lib/matching/match-index.js';
import type { PushEvent } from '../lib/webhook/push-event.js';
import { ms, type Row, stats } from './measure.js';

/** Index 5,000 apps of the pushed repository among 45,000 of other repositories; match single-service pushes. */
export async function benchMatching(): Promise<Row[]> {
  const objects: FleetObject[] = [];
  for (let repo = 0; repo < 10; repo++) {
    for (let i = 0; i < 5000; i++) {
      objects.push({
        cluster: `c-${String(i % 50).padStart(3, '0')}`,
        kind: 'Application',
        raw: {
          metadata: {
            name: `svc-${i % 100}-${Math.floor(i / 100)}-r${repo}`,
            namespace: 'argocd',
            annotations: { 'argocd.argoproj.io/manifest-generate-paths': '.' },
          },
          spec: {
            project: 'apps',
            source: {
              repoURL: `https://github.com/org/gitops-${repo}.git`,
              path: `apps/svc-${i % 100}`,
              targetRevision: 'main',
            },
            destination: { name: 'in-cluster', namespace: `svc-${i % 100}` },
          },
        },
      });
    }
  }
  const buildStart = performance.now();
  const index = buildMatchIndex(objects);
  const buildMs = performance.now() - buildStart;
  const samples: number[] = [];
  let matched = 0;
  for (let n = 0; n < 300; n++) {
    const event = {
      repo: { urls: ['https://github.com/org/gitops-0'], webUrl: 'https://github.com/org/gitops-0' },
      refType: 'branch',
      refName: 'main',
      touchedDefaultBranch: true,
    } as unknown as PushEvent;
    const start = performance.now();
    const result = index.match(event, { known: true, files: [`apps/svc-${n % 100}/deployment.yaml`] });
    samples.push(performance.now() - start);
    matched = result.matches.filter((m) => m.decision === 'refreshed').length;
  }
  const s = stats(samples);
  return [
    { scenario: 'matching', measure: 'index build, 50,000 apps (10 repositories)', value: ms(buildMs) },
    {
      scenario: 'matching',
      measure: `match one push (5,000 apps of its repository, ${matched} refreshed) p50 / p99`,
      value: `${ms(s.p50)} / ${ms(s.p99)}`,
    },
  ];
}
