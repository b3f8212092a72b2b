import { describe, expect, it } from 'vitest';
import { buildMatchIndex, type FleetObject, type MatchResult } from '../../../lib/matching/match-index.js';
import { githubPushEvent } from '../../helpers/push-event.js';
import {
  application,
  applicationSet,
  branchPush,
  files,
  gitRepository,
  gitSource,
  REPO,
  tagPush,
  unknownFiles,
} from './fleet-objects.js';

const PATHS = 'argocd.argoproj.io/manifest-generate-paths';
const OTHER = 'https://github.com/acme/other';
const app = (cluster: string, raw: unknown): FleetObject => ({ cluster, kind: 'Application', raw });
const decisions = (result: MatchResult) =>
  Object.fromEntries(
    result.matches.map((m) => [`${m.target.cluster}/${m.target.kind}/${m.target.name}`, m.decision]),
  );

describe('buildMatchIndex', () => {
  const fleet: FleetObject[] = [
    app('hub', application('web', { source: gitSource(REPO, 'apps/web', 'HEAD') }, { [PATHS]: '.' })),
    app(
      'hub',
      application('api', { source: gitSource(`${REPO}.git`, 'apps/api', 'main') }, { [PATHS]: '.' }),
    ),
    app(
      'hub',
      application('unfiltered', { source: gitSource('git@github.com:acme/gitops.git', 'x', 'main') }),
    ),
    app('hub', application('release', { source: gitSource(REPO, 'apps/web', 'release/1.0') })),
    app('hub', application('elsewhere', { source: gitSource(OTHER, 'apps/web', 'main') })),
    app(
      'spoke-eu',
      application('web', { source: gitSource(REPO.toUpperCase(), 'apps/web', 'main') }, { [PATHS]: '.' }),
    ),
  ];
  const index = buildMatchIndex(fleet);

  it('returns only objects of the pushed repository, each with its decision, on every cluster', () => {
    expect(decisions(index.match(branchPush('main'), files('apps/web/deploy.yaml')))).toEqual({
      'hub/Application/web': 'refreshed',
      'hub/Application/api': 'paths-miss',
      'hub/Application/unfiltered': 'refreshed',
      'hub/Application/release': 'revision-miss',
      'spoke-eu/Application/web': 'refreshed',
    });
  });

  it('returns nothing for a repository no object uses', () => {
    const push = branchPush('main', { repo: { urls: ['https://github.com/acme/unknown'] } });
    expect(index.match(push, files('a')).matches).toEqual([]);
  });

  it('matches through any URL of the push, here only its SSH form', () => {
    const push = branchPush('main', { repo: { urls: ['git@github.com:acme/other.git'] } });
    expect(decisions(index.match(push, files('apps/web/x')))).toEqual({
      'hub/Application/elsewhere': 'refreshed',
    });
  });

  it.each([
    ['unknown files fail open for path-filtered apps', unknownFiles, 'refreshed-unknown-files', 'refreshed'],
    ['an empty commit refreshes only unfiltered apps', files(), 'paths-miss', 'refreshed'],
  ] as const)('%s', (_name, changed, filtered, unfiltered) => {
    const result = decisions(index.match(branchPush('main'), changed));
    expect(result['hub/Application/api']).toBe(filtered);
    expect(result['hub/Application/unfiltered']).toBe(unfiltered);
  });

  it.each([
    ['an unfiltered app', 'unfiltered', files('a'), 'source follows branch main; no path filter'],
    [
      'a filtered app with a covered file',
      'web',
      files('apps/web/x'),
      'source follows branch main; paths cover a changed file',
    ],
    [
      'a filtered app with unknown files',
      'web',
      unknownFiles,
      'source follows branch main; changed files unknown (truncated)',
    ],
  ] as const)('explains %s', (_name, name, changed, reason) => {
    const match = index.match(branchPush('main'), changed).matches.find((m) => m.target.name === name);
    expect(match?.reason).toBe(reason);
  });

  it('explains a decision without the repository URL', () => {
    const withToken = buildMatchIndex([
      app(
        'hub',
        application('t', { source: gitSource('https://bot:tok3n@github.com/acme/gitops', '.', 'dev') }),
      ),
    ]);
    const [match] = withToken.match(branchPush('main'), files('a')).matches;
    expect(match?.reason).toBe("source targetRevision 'dev' does not follow branch main");
    expect(JSON.stringify(match?.reason)).not.toContain('tok3n');
  });
});

describe('multi-source and hydrator applications', () => {
  it('checks every source with its own path and refreshes the app once', () => {
    const index = buildMatchIndex([
      app(
        'hub',
        application(
          'multi',
          {
            sources: [
              gitSource(REPO, 'apps/web', 'main'),
              gitSource(REPO, 'apps/api', 'main'),
              { repoURL: 'https://charts.example.com/stable', chart: 'web', targetRevision: '1.0.0' },
              { repoURL: REPO, targetRevision: 'main', ref: 'values' },
            ],
          },
          { [PATHS]: '.;/envs/prod/values.yaml' },
        ),
      ),
    ]);
    const push = branchPush('main');
    expect(index.match(push, files('apps/api/x.yaml')).matches).toHaveLength(1);
    expect(decisions(index.match(push, files('apps/api/x.yaml')))).toEqual({
      'hub/Application/multi': 'refreshed',
    });
    // The ref source has no path: `.` resolves to the repo root, so it covers every file (as in Argo CD).
    expect(decisions(index.match(push, files('docs/readme.md')))).toEqual({
      'hub/Application/multi': 'refreshed',
    });
  });

  it('gives the best verdict across sources: a paths miss beats a revision miss', () => {
    const index = buildMatchIndex([
      app(
        'hub',
        application(
          'm',
          { sources: [gitSource(REPO, 'apps/web', 'main'), gitSource(REPO, 'apps/api', 'v2')] },
          { [PATHS]: '.' },
        ),
      ),
    ]);
    const [match] = index.match(branchPush('main'), files('docs/x')).matches;
    expect(match?.decision).toBe('paths-miss');
    expect(match?.reason).toBe('sources[0] follows branch main; no changed file under its paths');
  });

  const hydrated = application(
    'hydrated',
    {
      sourceHydrator: {
        drySource: { repoURL: REPO, targetRevision: 'HEAD', path: 'dry/web' },
        syncSource: { targetBranch: 'env/prod', path: 'hydrated/web' },
      },
    },
    { [PATHS]: '.' },
  );
  const index = buildMatchIndex([app('hub', hydrated)]);

  it.each([
    [
      'a dry-source change refreshes and hydrates',
      branchPush('main'),
      files('dry/web/k.yaml'),
      'refreshed',
      true,
    ],
    [
      'a dry-branch change outside its paths is a paths miss',
      branchPush('main'),
      files('other/x'),
      'paths-miss',
      false,
    ],
    [
      'a sync-branch change under the sync path refreshes only',
      branchPush('env/prod'),
      files('hydrated/web/all.yaml'),
      'refreshed',
      false,
    ],
    [
      'a sync-branch change elsewhere is a paths miss (the annotation is ignored there)',
      branchPush('env/prod'),
      files('hydrated/api/a.yaml'),
      'paths-miss',
      false,
    ],
    [
      'unknown files on the dry branch fail open and hydrate',
      branchPush('main'),
      unknownFiles,
      'refreshed-unknown-files',
      true,
    ],
    ['another branch is a revision miss', branchPush('dev'), files('dry/web/k.yaml'), 'revision-miss', false],
  ] as const)('%s', (_name, push, changed, decision, hydrate) => {
    const [match] = index.match(push, changed).matches;
    expect(match?.decision).toBe(decision);
    expect(match?.hydrate).toBe(hydrate);
  });
});

describe('hydrator with dry and sync sources on one branch', () => {
  it('hydrates when the dry source matched, even if the sync source matched too', () => {
    const index = buildMatchIndex([
      app(
        'hub',
        application('same-branch', {
          sourceHydrator: {
            drySource: { repoURL: REPO, targetRevision: 'main', path: 'dry' },
            syncSource: { targetBranch: 'main', path: 'hydrated' },
          },
        }),
      ),
    ]);
    const [match] = index.match(branchPush('main'), files('hydrated/a.yaml', 'dry/b.yaml')).matches;
    expect(match).toMatchObject({ decision: 'refreshed', hydrate: true });
  });
});

describe('ApplicationSets and Flux GitRepositories', () => {
  const index = buildMatchIndex([
    {
      cluster: 'hub',
      kind: 'ApplicationSet',
      raw: applicationSet('by-dir', [
        {
          matrix: {
            generators: [
              { clusters: {} },
              {
                git: {
                  repoURL: REPO,
                  revision: 'HEAD',
                  directories: [{ path: 'apps/*' }, { path: 'apps/legacy', exclude: true }],
                },
              },
            ],
          },
        },
      ]),
    },
    {
      cluster: 'hub',
      kind: 'ApplicationSet',
      raw: applicationSet('by-file', [
        { git: { repoURL: REPO, revision: 'refs/tags/v1.0.0', files: [{ path: 'c/**/x.json' }] } },
      ]),
    },
    {
      cluster: 'spoke-us',
      kind: 'GitRepository',
      raw: gitRepository('infra', `${REPO}.git`, { branch: 'main' }),
    },
    {
      cluster: 'spoke-us',
      kind: 'GitRepository',
      raw: gitRepository('releases', REPO, { semver: '^1.0.0' }),
    },
    { cluster: 'spoke-us', kind: 'GitRepository', raw: gitRepository('pinned', REPO, { commit: 'abc1234' }) },
  ]);

  it('refreshes an appset whose nested git generator covers a new app directory', () => {
    expect(decisions(index.match(branchPush('main'), files('apps/new/kustomization.yaml')))).toEqual({
      'hub/ApplicationSet/by-dir': 'refreshed',
      'hub/ApplicationSet/by-file': 'revision-miss',
      'spoke-us/GitRepository/infra': 'refreshed',
      'spoke-us/GitRepository/releases': 'revision-miss',
      'spoke-us/GitRepository/pinned': 'revision-miss',
    });
  });

  it('differs from Argo CD: an appset whose paths saw no change is not refreshed', () => {
    const result = decisions(index.match(branchPush('main'), files('apps/legacy/a.yaml')));
    expect(result['hub/ApplicationSet/by-dir']).toBe('paths-miss');
  });

  it('follows a release tag with the files generator and the semver GitRepository', () => {
    expect(decisions(index.match(tagPush('v1.0.0'), files('c/eu/prod/x.json')))).toEqual({
      'hub/ApplicationSet/by-dir': 'revision-miss',
      'hub/ApplicationSet/by-file': 'refreshed',
      'spoke-us/GitRepository/infra': 'revision-miss',
      'spoke-us/GitRepository/releases': 'refreshed',
      'spoke-us/GitRepository/pinned': 'revision-miss',
    });
  });
});

describe('objects that fail to parse', () => {
  const broken = application('broken', { sources: [gitSource(REPO), { repoURL: 7 }] });
  const sourceless = application('sourceless', {});
  const index = buildMatchIndex([
    app('hub', broken),
    app('hub', sourceless),
    { cluster: 'hub', kind: 'ApplicationSet', raw: { metadata: { name: 'bad' } } },
    app('hub', application('fine', { source: gitSource(REPO, '.', 'main') })),
  ]);

  it('reports a failure with the push to the repository it names, next to the good objects', () => {
    const result = index.match(branchPush('main'), files('a'));
    expect(result.failures).toEqual([
      {
        cluster: 'hub',
        kind: 'Application',
        namespace: 'argocd',
        name: 'broken',
        reason: 'spec.sources[1].repoURL is not a string',
      },
    ]);
    expect(decisions(result)).toEqual({ 'hub/Application/fine': 'refreshed' });
  });

  it('keeps every failure, attributable or not, on the index', () => {
    expect(index.failures.map((f) => [f.kind, f.name ?? null, f.reason])).toEqual([
      ['Application', 'broken', 'spec.sources[1].repoURL is not a string'],
      ['Application', 'sourceless', 'spec has no source'],
      ['ApplicationSet', 'bad', 'metadata.namespace is missing'],
    ]);
  });

  it('does not report a failure to pushes of other repositories', () => {
    const push = branchPush('main', { repo: { urls: [OTHER] } });
    expect(index.match(push, files('a')).failures).toEqual([]);
  });
});

describe('a whole PushEvent', () => {
  it('is accepted as the push to match, with its own changed files', () => {
    const event = githubPushEvent({ changedFiles: files('apps/web/d.yaml') });
    const index = buildMatchIndex([
      app('hub', application('web', { source: gitSource(REPO, 'apps/web') }, { [PATHS]: '.' })),
    ]);
    expect(decisions(index.match(event, event.changedFiles))).toEqual({ 'hub/Application/web': 'refreshed' });
  });
});
