import { describe, expect, it } from 'vitest';
import type { WaveConfig } from '../../../lib/fleet/fleet-config.js';
import { parseFleetFile } from '../../../lib/fleet/fleet-file.js';
import { nextWave, planWaves, waitsForMessage, waveOf, waveOfTarget } from '../../../lib/rollouts/waves.js';

const CLUSTERS = [
  { name: 'hub-eu', labels: { tier: 'hub' } },
  { name: 'staging-1', labels: { tier: 'staging' } },
  { name: 'staging-2' },
  { name: 'prod-canary', labels: { tier: 'prod', region: 'eu' } },
  { name: 'prod-eu-1', labels: { tier: 'prod', region: 'eu' } },
  { name: 'prod-us-1', labels: { tier: 'prod', region: 'us' } },
  { name: 'dr-1' },
];

const wave = (name: string, select: Partial<Pick<WaveConfig, 'clusters' | 'selector'>> = {}): WaveConfig => ({
  name,
  ...select,
  soakMs: 0,
  maxUnhealthy: { count: 0 },
});

const WAVES: readonly WaveConfig[] = [
  wave('canary', { clusters: ['staging-*', 'prod-canary'] }),
  wave('prod-eu', { selector: { tier: 'prod', region: 'eu' } }),
  wave('prod-us', { clusters: ['prod-us-?'] }),
  wave('rest'),
];

describe('planWaves', () => {
  it('is undefined without waves: one wave, the whole fleet, nothing gated', () => {
    expect(planWaves(undefined, CLUSTERS)).toBeUndefined();
    expect(planWaves([], CLUSTERS)).toBeUndefined();
    expect(waveOf(undefined, 'prod-eu-1')).toBeUndefined();
  });

  it('puts each cluster in the first wave that selects it, by glob, name, labels or as the rest', () => {
    const plan = planWaves(WAVES, CLUSTERS);
    expect(plan?.waves.map((w) => [w.name, w.clusters])).toEqual([
      ['canary', ['staging-1', 'staging-2', 'prod-canary']],
      ['prod-eu', ['prod-eu-1']],
      ['prod-us', ['prod-us-1']],
      ['rest', ['hub-eu', 'dr-1']],
    ]);
    expect(plan?.waves.map((w) => w.index)).toEqual([0, 1, 2, 3]);
  });

  it('puts a cluster no wave names in the last wave, even when that wave names clusters', () => {
    const plan = planWaves(
      [wave('canary', { clusters: ['staging-1'] }), wave('prod', { clusters: ['prod-*'] })],
      CLUSTERS,
    );
    expect(plan?.waves[1]?.clusters).toEqual([
      'hub-eu',
      'staging-2',
      'prod-canary',
      'prod-eu-1',
      'prod-us-1',
      'dr-1',
    ]);
    expect(plan?.byCluster.get('dr-1')).toBe(1);
  });

  it('carries each wave soak and tolerance', () => {
    const plan = planWaves([{ name: 'only', soakMs: 300_000, maxUnhealthy: { percent: 10 } }], CLUSTERS);
    expect(plan?.waves[0]).toMatchObject({ soakMs: 300_000, maxUnhealthy: { percent: 10 } });
  });

  it('plans the waves the fleet file gives', () => {
    const fleet = parseFleetFile(
      'clusters:\n  - { name: a-1, server: https://a.example, auth: { token: t } }\n  - { name: b-1, server: https://b.example, auth: { token: t }, labels: { ring: "2" } }\nwaves:\n  - { name: one, clusters: ["a-*"] }\n  - { name: two, selector: { ring: "2" } }\n',
      'fleet.yaml',
      { mode: 'local' },
    );
    const plan = planWaves(fleet.waves, fleet.clusters);
    expect(plan?.waves.map((w) => w.clusters)).toEqual([['a-1'], ['b-1']]);
  });
});

describe('waveOf', () => {
  const plan = planWaves(WAVES, CLUSTERS);
  if (plan === undefined) throw new Error('plan expected');

  it.each([
    ['staging-2', 'canary'],
    ['prod-canary', 'canary'],
    ['prod-eu-1', 'prod-eu'],
    ['prod-us-1', 'prod-us'],
    ['hub-eu', 'rest'],
    ['not-in-fleet', 'rest'],
    [undefined, 'rest'],
  ])('an app deploying to %s is in wave %s', (destination, expected) => {
    expect(waveOf(plan, destination).name).toBe(expected);
  });

  it('splits the apps of one hub by destination (hub-and-spoke)', () => {
    const apps = [
      { kind: 'Application', cluster: 'hub-eu', destination: 'staging-1', name: 'web-staging' },
      { kind: 'Application', cluster: 'hub-eu', destination: 'prod-eu-1', name: 'web-eu' },
      { kind: 'Application', cluster: 'hub-eu', destination: 'prod-us-1', name: 'web-us' },
      { kind: 'Application', cluster: 'hub-eu', destination: 'hub-eu', name: 'argocd-itself' },
      { kind: 'Application', cluster: 'hub-eu', name: 'unknown-destination' },
    ] as const;
    expect(apps.map((app) => [app.name, waveOfTarget(plan, app).name])).toEqual([
      ['web-staging', 'canary'],
      ['web-eu', 'prod-eu'],
      ['web-us', 'prod-us'],
      ['argocd-itself', 'rest'],
      ['unknown-destination', 'rest'],
    ]);
  });

  it('places an ApplicationSet or GitRepository by the cluster it lives on', () => {
    expect(
      waveOfTarget(plan, { kind: 'ApplicationSet', cluster: 'staging-1', destination: 'prod-us-1' }).name,
    ).toBe('canary');
    expect(waveOfTarget(plan, { kind: 'GitRepository', cluster: 'prod-eu-1' }).name).toBe('prod-eu');
  });

  it('names the next wave and the held message', () => {
    const canary = waveOf(plan, 'staging-1');
    const next = nextWave(plan, canary);
    expect(next?.name).toBe('prod-eu');
    expect(waitsForMessage(waveOf(plan, 'prod-us-1'), canary)).toBe('wave prod-us waits for canary');
    expect(nextWave(plan, waveOf(plan, undefined))).toBeUndefined();
  });
});
