import { describe, expect, it } from 'vitest';
import { parseApplication } from '../../../lib/argocd/application.js';
import { buildMatchIndex, type FleetObject } from '../../../lib/matching/match-index.js';
import { ociSourceKey } from '../../../lib/matching/oci-source.js';
import { decideImageApplication, tagVerdict } from '../../../lib/matching/registry-decide.js';
import type { RegistryImage } from '../../../lib/registry/registry-event.js';

const HOST = '123456789012.dkr.ecr.eu-west-1.amazonaws.com';
const DIGEST = `sha256:${'c0ffee00'.repeat(8)}`;
const image = (tag: string, repository = 'charts/web'): RegistryImage => ({
  host: HOST,
  repository,
  tag,
  digest: DIGEST,
});

describe('ociSourceKey: the image repository a source pulls from', () => {
  it.each([
    ['an OCI source is its host and path', `oci://${HOST}/charts/web`, undefined, `${HOST}/charts/web`],
    [
      'case and a trailing slash are ignored',
      `OCI://${HOST.toUpperCase()}/Charts/Web/`,
      undefined,
      `${HOST}/charts/web`,
    ],
    ['a Helm OCI source is its base and chart', `${HOST}/charts`, 'web', `${HOST}/charts/web`],
    ['a Helm OCI source given with oci:// is the same', `oci://${HOST}/charts`, 'web', `${HOST}/charts/web`],
    ['a Helm OCI source at the registry root is the chart', HOST, 'web', `${HOST}/web`],
    ['a local registry keeps its port', 'oci://localhost:5000/web', undefined, 'localhost:5000/web'],
    ['a Helm repository over https is not OCI', 'https://charts.example.com', 'web', undefined],
    ['a Git source is not OCI', 'https://github.com/acme/gitops', undefined, undefined],
    [
      'a schemeless Git-looking URL without a chart is not OCI',
      'github.com/acme/gitops',
      undefined,
      undefined,
    ],
    ['an OCI URL with user info is refused', `oci://user@${HOST}/web`, undefined, undefined],
    ['an OCI URL without a path is refused', `oci://${HOST}`, undefined, undefined],
  ])('%s', (_name, repoURL, chart, key) => {
    expect(ociSourceKey(repoURL, chart)).toBe(key);
  });
});

describe('tagVerdict: a targetRevision against a pushed tag and digest', () => {
  it.each([
    ['the exact tag follows', '1.4.0', '1.4.0', true],
    ['exact tags are case-sensitive', 'Stable', 'stable', false],
    ['another exact tag does not follow', 'stable', 'canary', false],
    ['a caret constraint follows a version inside it', '^1.2.0', '1.4.0', true],
    ['a caret constraint does not follow the next major', '^1.2.0', '2.0.0', false],
    ['a tilde constraint follows a patch', '~1.4', '1.4.7', true],
    ['a leading v on the tag is coerced', '>=1.0.0', 'v1.4.0', true],
    ['a wildcard follows any release', '*', '3.0.1', true],
    ['a prerelease is only followed when the constraint names one', '^1.2.0', '1.5.0-rc.1', false],
    ['a tag that is not a version never satisfies a constraint', '*', 'latest', false],
    ['an empty targetRevision follows latest', '', 'latest', true],
    ['an empty targetRevision does not follow a version', '', '1.4.0', false],
    ['the pushed digest follows, whatever the tag', DIGEST, 'anything', true],
    ['a digest is compared case-insensitively', DIGEST.toUpperCase().replace('SHA256', 'sha256'), 'x', true],
    ['another digest never follows', `sha256:${'0'.repeat(64)}`, '1.4.0', false],
  ])('%s', (_name, target, tag, follows) => {
    expect(tagVerdict(target, image(tag)).follows).toBe(follows);
  });

  it('says why a tag that is not a version misses a constraint', () => {
    expect(tagVerdict('^1.0.0', image('latest')).why).toBe(
      "is the constraint '^1.0.0' and tag latest is not a version",
    );
  });

  it('reads a long crafted constraint in linear time without backtracking (it is simply refused)', () => {
    const crafted = `${'1.'.repeat(5000)}x`;
    expect(tagVerdict(crafted, image('1.0.0')).follows).toBe(false);
  });
});

function app(name: string, spec: Record<string, unknown>, cluster = 'hub'): FleetObject {
  return {
    cluster,
    kind: 'Application',
    raw: {
      metadata: { name, namespace: 'argocd' },
      spec: { project: 'default', destination: { name: 'in-cluster', namespace: name }, ...spec },
    },
  };
}

const FLEET: FleetObject[] = [
  app('oci-exact', { source: { repoURL: `oci://${HOST}/charts/web`, targetRevision: '1.4.0', path: '.' } }),
  app('oci-semver', { source: { repoURL: `oci://${HOST}/charts/web`, targetRevision: '^1.0.0' } }),
  app('oci-old-major', { source: { repoURL: `oci://${HOST}/charts/web`, targetRevision: '^0.9.0' } }),
  app('oci-digest', { source: { repoURL: `oci://${HOST}/charts/web`, targetRevision: DIGEST } }),
  app('helm-oci', { source: { repoURL: `${HOST}/charts`, chart: 'web', targetRevision: '1.x' } }),
  app('helm-oci-other-chart', { source: { repoURL: `${HOST}/charts`, chart: 'api', targetRevision: '*' } }),
  app('helm-https', { source: { repoURL: 'https://charts.example.com', chart: 'web', targetRevision: '*' } }),
  app('multi', {
    sources: [
      { repoURL: 'https://github.com/acme/values', targetRevision: 'main', ref: 'values' },
      { repoURL: `oci://${HOST}/charts/web`, targetRevision: '~1.4' },
    ],
  }),
  app('git-only', {
    source: { repoURL: `https://${HOST}/charts/web`, targetRevision: 'main', path: 'charts/web' },
  }),
  app('spoke-oci', { source: { repoURL: `oci://${HOST}/charts/web`, targetRevision: '1.4.0' } }, 'spoke'),
];

const push = (img: RegistryImage) => ({
  refType: 'tag' as const,
  refName: img.tag,
  touchedDefaultBranch: false,
  repo: { urls: [], webUrl: `oci://${img.host}/${img.repository}` },
  image: img,
});

function decisions(img: RegistryImage): Record<string, string> {
  const { matches } = buildMatchIndex(FLEET).match(push(img), { known: true, files: [] });
  return Object.fromEntries(matches.map((m) => [`${m.target.cluster}/${m.target.name}`, m.decision]));
}

describe('the match index and a registry push', () => {
  it('refreshes exactly the apps on the pushed repository whose targetRevision follows the tag', () => {
    expect(decisions(image('1.4.0'))).toEqual({
      'hub/oci-exact': 'refreshed',
      'hub/oci-semver': 'refreshed',
      'hub/oci-old-major': 'revision-miss',
      'hub/oci-digest': 'refreshed',
      'hub/helm-oci': 'refreshed',
      'hub/multi': 'refreshed',
      'spoke/spoke-oci': 'refreshed',
    });
  });

  it('a tag that is not a version refreshes only exact and digest followers, and says why the others miss', () => {
    const { matches } = buildMatchIndex(FLEET).match(push(image('latest')), { known: true, files: [] });
    const byName = Object.fromEntries(matches.map((m) => [m.target.name, m]));
    expect(byName['oci-semver']).toMatchObject({
      decision: 'revision-miss',
      reason: "source targetRevision is the constraint '^1.0.0' and tag latest is not a version",
    });
    expect(byName['oci-exact']?.decision).toBe('revision-miss');
    expect(byName['oci-digest']?.decision).toBe('refreshed');
  });

  it('names the multi-source entry that followed the push', () => {
    const { matches } = buildMatchIndex(FLEET).match(push(image('1.4.2')), { known: true, files: [] });
    expect(matches.find((m) => m.target.name === 'multi')).toMatchObject({
      decision: 'refreshed',
      reason: "sources[1] targetRevision '~1.4' is satisfied by tag 1.4.2",
    });
  });

  it('matches a Helm OCI source by its base and chart, not another chart of the same base', () => {
    const found = decisions(image('2.0.0', 'charts/api'));
    expect(found).toEqual({ 'hub/helm-oci-other-chart': 'refreshed' });
  });

  it('matches nothing for a repository no app pulls from', () => {
    expect(decisions(image('1.4.0', 'charts/other'))).toEqual({});
  });

  it('a Git push of a like-named repository never reaches the OCI apps', () => {
    const { matches } = buildMatchIndex(FLEET).match(
      {
        refType: 'branch',
        refName: 'main',
        touchedDefaultBranch: true,
        repo: { urls: [`https://${HOST}/charts/web`] },
      },
      { known: false, reason: 'no-commit-list' },
    );
    expect(matches.map((m) => m.target.name)).toEqual(['git-only']);
  });
});

describe('a Helm OCI app already running a later version than the one pushed', () => {
  const raw = (revision: unknown, spec: Record<string, unknown>) => ({
    metadata: { name: 'web', namespace: 'argocd' },
    spec: { destination: { namespace: 'web' }, ...spec },
    status: { sync: revision },
  });
  const helm = { source: { repoURL: `${HOST}/charts`, chart: 'web', targetRevision: '^1.0.0' } };
  const decide = (object: ReturnType<typeof raw>, tag: string) => {
    const parsed = parseApplication(object);
    if (!parsed.ok) throw new Error(parsed.reason);
    return decideImageApplication(parsed.value, image(tag), object);
  };

  it('is a miss: its constraint already resolved past the pushed tag', () => {
    expect(decide(raw({ revision: '1.4.0' }, helm), '1.3.5')).toMatchObject({
      decision: 'revision-miss',
      reason: "source targetRevision '^1.0.0' runs 1.4.0 already, later than tag 1.3.5",
    });
  });

  it('is refreshed when the pushed tag is the later one, or the same version pushed again', () => {
    expect(decide(raw({ revision: '1.4.0' }, helm), '1.5.0')?.decision).toBe('refreshed');
    expect(decide(raw({ revision: '1.4.0' }, helm), '1.4.0')?.decision).toBe('refreshed');
  });

  it('reads the entry of its own source in a multi-source app', () => {
    const multi = {
      sources: [
        { repoURL: 'https://github.com/acme/values', targetRevision: 'main', ref: 'values' },
        { repoURL: `${HOST}/charts`, chart: 'web', targetRevision: '^1.0.0' },
      ],
    };
    expect(decide(raw({ revisions: ['9.9.9', '1.4.0'] }, multi), '1.3.5')?.decision).toBe('revision-miss');
    expect(decide(raw({ revisions: ['9.9.9', '1.2.0'] }, multi), '1.3.5')?.decision).toBe('refreshed');
  });

  it('an OCI source (it reports a digest, no version) is refreshed', () => {
    const oci = { source: { repoURL: `oci://${HOST}/charts/web`, targetRevision: '^1.0.0' } };
    expect(decide(raw({ revision: `sha256:${'1'.repeat(64)}` }, oci), '1.3.5')?.decision).toBe('refreshed');
  });
});
