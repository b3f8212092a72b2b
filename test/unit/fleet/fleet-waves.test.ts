import { describe, expect, it } from 'vitest';
import { matchesClusterGlob } from '../../../lib/fleet/cluster-glob.js';
import { formatDuration, parseDuration } from '../../../lib/fleet/duration.js';
import { repositoryControl } from '../../../lib/fleet/fleet-config.js';
import { checkFleetFile, parseFleetFile } from '../../../lib/fleet/fleet-file.js';

const LOCAL = { mode: 'local' } as const;

// `waves:` goes first so its lines are easy to count: line 1 is `waves:`.
const CLUSTERS = `clusters:
  - { name: staging-1, server: https://s1.example, auth: { token: t }, labels: { tier: staging } }
  - { name: staging-2, server: https://s2.example, auth: { token: t }, labels: { tier: staging } }
  - { name: prod-canary, server: https://c.example, auth: { token: t }, labels: { tier: prod, region: eu } }
  - { name: prod-eu-1, server: https://e.example, auth: { token: t }, labels: { tier: prod, region: eu } }
  - { name: prod-us-1, server: https://u.example, auth: { token: t }, labels: { tier: prod, region: us } }
`;
const withWaves = (waves: string) => `waves:\n${waves}${CLUSTERS}`;

function problemsOf(text: string): readonly string[] {
  const result = checkFleetFile(text, 'fleet.yaml', LOCAL);
  return result.ok ? [] : result.problems;
}

describe('fleet file: labels, control and waves', () => {
  it('reads cluster labels, repository control and every wave field', () => {
    const fleet = parseFleetFile(
      withWaves(
        '  - name: canary\n    clusters: [staging-*, prod-canary]\n    soak: 1h30m\n' +
          '  - name: prod-eu\n    selector: { tier: prod, region: eu }\n    maxUnhealthy: "10%"\n' +
          '  - name: rest\n    maxUnhealthy: 2\n    soak: 0\n',
      ) +
        'repositories:\n  - url: https://github.com/org/a\n    control: pin\n  - url: https://github.com/org/b\n',
      'fleet.yaml',
      LOCAL,
    );
    expect(fleet.clusters.find((c) => c.name === 'prod-eu-1')?.labels).toEqual({
      tier: 'prod',
      region: 'eu',
    });
    expect(fleet.repositories.map(repositoryControl)).toEqual(['pin', 'advisory']);
    expect(fleet.repositories[1]).not.toHaveProperty('control');
    expect(fleet.waves).toEqual([
      {
        name: 'canary',
        clusters: ['staging-*', 'prod-canary'],
        soakMs: 5_400_000,
        maxUnhealthy: { count: 0 },
      },
      {
        name: 'prod-eu',
        selector: { tier: 'prod', region: 'eu' },
        soakMs: 0,
        maxUnhealthy: { percent: 10 },
      },
      { name: 'rest', soakMs: 0, maxUnhealthy: { count: 2 } },
    ]);
  });

  it('leaves waves and labels out when the file has none', () => {
    const fleet = parseFleetFile(CLUSTERS.replace(/, labels: \{[^}]*\}/g, ''), 'fleet.yaml', LOCAL);
    expect(fleet).not.toHaveProperty('waves');
    expect(fleet.clusters[0]).not.toHaveProperty('labels');
  });

  it('lets a glob or selector overlap an earlier wave: the first wave holds the cluster', () => {
    const result = checkFleetFile(
      withWaves('  - name: canary\n    clusters: [prod-canary]\n  - name: prod\n    clusters: [prod-*]\n'),
      'fleet.yaml',
      LOCAL,
    );
    expect(result.ok ? [] : result.problems).toEqual([]);
  });

  it.each([
    [
      'a literal cluster that is not in the fleet, with a hint',
      '  - name: canary\n    clusters:\n      - prod-canary\n      - prod-cnary\n',
      'fleet.yaml:5: waves[0].clusters[1]: names no cluster of this fleet (did you mean "prod-canary"?)',
    ],
    [
      'a glob matching no cluster',
      '  - name: canary\n    clusters:\n      - dev-*\n',
      'fleet.yaml:4: waves[0].clusters[0]: glob dev-* selects no cluster of this fleet',
    ],
    [
      'a cluster twice in one wave',
      '  - name: canary\n    clusters:\n      - staging-1\n      - staging-1\n',
      'fleet.yaml:5: waves[0].clusters[1]: repeats staging-1 (clusters[0])',
    ],
    [
      'a cluster named in two waves',
      '  - name: canary\n    clusters: [staging-1]\n  - name: second\n    clusters:\n      - staging-1\n',
      'fleet.yaml:6: waves[1].clusters[0]: staging-1 is already in wave canary (waves[0])',
    ],
    [
      'a cluster named by a later wave when an earlier glob holds it',
      '  - name: canary\n    clusters: [staging-*]\n  - name: second\n    clusters: [staging-2]\n',
      'fleet.yaml:5: waves[1].clusters[0]: staging-2 is already in wave canary (waves[0])',
    ],
    [
      'a glob selecting only clusters of earlier waves',
      '  - name: canary\n    clusters: [staging-1, staging-2]\n  - name: second\n    clusters: [staging-?]\n',
      'fleet.yaml:5: waves[1].clusters[0]: glob staging-? selects only clusters of earlier waves (staging-1 in wave canary (waves[0]), staging-2 in wave canary (waves[0]))',
    ],
    [
      'an empty clusters list',
      '  - name: canary\n    clusters: []\n',
      'fleet.yaml:3: waves[0].clusters: must name at least one cluster (an empty wave selects nothing)',
    ],
    [
      'a selector no cluster matches',
      '  - name: canary\n    selector: { tier: prod, region: ap }\n',
      'fleet.yaml:3: waves[0].selector: selector tier=prod, region=ap selects no cluster of this fleet',
    ],
    [
      'a selector matching only clusters of earlier waves',
      '  - name: canary\n    clusters: [prod-us-1]\n  - name: us\n    selector: { region: us }\n',
      'fleet.yaml:5: waves[1].selector: selector region=us selects only clusters of earlier waves (prod-us-1 in wave canary (waves[0]))',
    ],
    [
      'an empty selector',
      '  - name: canary\n    selector: {}\n',
      'fleet.yaml:3: waves[0].selector: must name at least one label',
    ],
    [
      'duplicate wave names',
      '  - name: canary\n    clusters: [staging-1]\n  - name: canary\n    clusters: [staging-2]\n',
      'fleet.yaml:4: waves[1].name: is used by another wave (waves[0])',
    ],
    [
      'a wave with both clusters and selector',
      '  - name: canary\n    clusters: [staging-1]\n    selector: { tier: staging }\n',
      'fleet.yaml:4: waves[0].selector: and clusters are exclusive; set one',
    ],
    [
      'a soak that is not a duration',
      '  - name: canary\n    clusters: [staging-1]\n    soak: 5 minutes\n',
      'fleet.yaml:4: waves[0].soak: must be a duration such as 30s, 5m, 1h or 1h30m',
    ],
    [
      'a soak given as a bare number',
      '  - name: canary\n    clusters: [staging-1]\n    soak: 300\n',
      'fleet.yaml:4: waves[0].soak: must be a duration such as 30s, 5m, 1h or 1h30m',
    ],
    [
      'a soak over a day',
      '  - name: canary\n    clusters: [staging-1]\n    soak: 25h\n',
      'fleet.yaml:4: waves[0].soak: must be at most 24h',
    ],
    [
      'a negative maxUnhealthy',
      '  - name: canary\n    clusters: [staging-1]\n    maxUnhealthy: -1\n',
      'fleet.yaml:4: waves[0].maxUnhealthy: must be a whole number of apps (0 or more) or a percentage such as "10%"',
    ],
    [
      'a percentage over 100',
      '  - name: canary\n    clusters: [staging-1]\n    maxUnhealthy: "150%"\n',
      'fleet.yaml:4: waves[0].maxUnhealthy: must be a whole number of apps (0 or more) or a percentage',
    ],
    [
      'a fractional percentage',
      '  - name: canary\n    clusters: [staging-1]\n    maxUnhealthy: "2.5%"\n',
      'fleet.yaml:4: waves[0].maxUnhealthy: must be a whole number of apps (0 or more) or a percentage',
    ],
    [
      'a wave without clusters or selector before the last',
      '  - name: rest\n  - name: canary\n    clusters: [staging-1]\n',
      'fleet.yaml:2: waves[0]: has neither clusters nor selector (it takes every cluster left), so it must be the last wave',
    ],
    ['a wave without a name', '  - clusters: [staging-1]\n', 'fleet.yaml:2: waves[0].name: is required'],
    [
      'a wave name that is not a DNS label',
      '  - name: Prod EU\n',
      'fleet.yaml:2: waves[0].name: must be a DNS label',
    ],
    [
      'a cluster entry that is no cluster name',
      '  - name: canary\n    clusters:\n      - "prod/[eu]"\n',
      'fleet.yaml:4: waves[0].clusters[0]: must be a cluster name or a glob of one (*, ?)',
    ],
    [
      'a typo in a wave key',
      '  - name: canary\n    clusters: [staging-1]\n    sok: 5m\n',
      'fleet.yaml:4: waves[0].sok: unknown field (did you mean "soak"?)',
    ],
    ['an empty waves list', ' []\n', 'fleet.yaml:1: waves: must list at least one wave'],
  ])('reports %s at its line', (_name, waves, expected) => {
    const text = waves === ' []\n' ? `waves:${waves}${CLUSTERS}` : withWaves(waves);
    const problems = problemsOf(text);
    expect(
      problems.some((p) => p.startsWith(expected)),
      problems.join('\n'),
    ).toBe(true);
    expect(problems).toHaveLength(1);
  });

  it('reports every wave problem of a file in line order', () => {
    expect(
      problemsOf(
        withWaves(
          '  - name: rest\n  - name: canary\n    clusters: [nowhere]\n    soak: 1d\n  - name: canary\n    selector: { tier: prod }\n',
        ),
      ),
    ).toEqual([
      'fleet.yaml:2: waves[0]: has neither clusters nor selector (it takes every cluster left), so it must be the last wave',
      'fleet.yaml:4: waves[1].clusters[0]: names no cluster of this fleet',
      'fleet.yaml:5: waves[1].soak: must be a duration such as 30s, 5m, 1h or 1h30m',
      'fleet.yaml:6: waves[2].name: is used by another wave (waves[1])',
    ]);
  });

  it.each([
    [
      'a label value that is a number asks for quotes',
      'clusters:\n  - name: c1\n    server: https://k8s.example\n    auth: { token: t }\n    labels:\n      zone: 1\n',
      'fleet.yaml:6: clusters[0].labels.zone: must be a string (quote it)',
    ],
    [
      'a label value with spaces',
      'clusters:\n  - name: c1\n    server: https://k8s.example\n    auth: { token: t }\n    labels:\n      tier: "pro d"\n',
      'fleet.yaml:6: clusters[0].labels.tier: must be a label value',
    ],
    [
      'labels that are not a mapping',
      'clusters:\n  - name: c1\n    server: https://k8s.example\n    auth: { token: t }\n    labels: [prod]\n',
      'fleet.yaml:5: clusters[0].labels: must be a mapping of label to value',
    ],
    [
      'an unknown repository control',
      'clusters:\n  - name: c1\n    server: https://k8s.example\n    auth: { token: t }\nrepositories:\n  - url: https://github.com/org/a\n    control: strict\n',
      'fleet.yaml:7: repositories[0].control: must be one of pin, advisory',
    ],
  ])('reports %s', (_name, text, expected) => {
    const problems = problemsOf(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(expected);
  });
});

describe('matchesClusterGlob', () => {
  it.each([
    ['staging-*', 'staging-1', true],
    ['staging-*', 'staging-', true],
    ['staging-*', 'stage-1', false],
    ['*', 'anything', true],
    ['prod-??', 'prod-eu', true],
    ['prod-??', 'prod-e', false],
    ['*-eu-*', 'prod-eu-1', true],
    ['*-eu-*', 'prod-us-1', false],
    ['a*b*c', 'aXbYbZc', true],
    ['a*b*c', 'aXbYbZ', false],
    ['prod-canary', 'prod-canary', true],
    ['prod-canary', 'prod-canary-2', false],
    ['**x', 'x', true],
  ])('%s against %s is %s', (pattern, name, expected) => {
    expect(matchesClusterGlob(pattern, name)).toBe(expected);
  });

  it('stays fast on a pattern built to make a backtracking matcher explode', () => {
    const pattern = `${'*a'.repeat(30)}b`;
    const name = 'a'.repeat(63);
    expect(matchesClusterGlob(pattern, name)).toBe(false);
    expect(matchesClusterGlob(pattern, `${name}b`)).toBe(true);
  });
});

describe('parseDuration / formatDuration', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['1h0m5s', 3_605_000],
    ['0', 0],
    ['0s', 0],
    ['', undefined],
    ['5', undefined],
    ['1m1h', undefined],
    ['1d', undefined],
    ['-5m', undefined],
  ])('%s reads as %s ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    [0, '0s'],
    [45_000, '45s'],
    [300_000, '5m'],
    [5_400_000, '1h30m'],
    [3_605_000, '1h5s'],
  ])('%i ms prints as %s, which reads back', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toBe(ms);
  });
});
