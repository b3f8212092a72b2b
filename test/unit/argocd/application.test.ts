import { describe, expect, it } from 'vitest';
import { parseApplication } from '../../../lib/argocd/application.js';
import { application, gitSource, REPO } from '../matching/fleet-objects.js';

const PATHS = 'argocd.argoproj.io/manifest-generate-paths';

describe('parseApplication', () => {
  it('reads a single-source application with its annotations and sync policy', () => {
    const raw = application(
      'web',
      {
        source: gitSource(REPO, 'apps/web', 'main'),
        syncPolicy: { automated: { prune: true } },
        project: 'team',
      },
      { [PATHS]: '.', 'argocd.argoproj.io/refresh': 'hard' },
    );
    expect(parseApplication(raw)).toEqual({
      ok: true,
      value: {
        namespace: 'argocd',
        name: 'web',
        sources: [
          { repoURL: REPO, repoKey: 'github.com/acme/gitops', targetRevision: 'main', path: 'apps/web' },
        ],
        manifestGeneratePaths: '.',
        refreshAnnotation: 'hard',
        automated: true,
        destination: { server: 'https://kubernetes.default.svc' },
        project: 'team',
      },
    });
  });

  it('reads every source of a multi-source application, chart and ref sources included', () => {
    const raw = application('multi', {
      sources: [
        { repoURL: 'https://charts.example.com', chart: 'web', targetRevision: '1.2.3' },
        { repoURL: 'oci://ghcr.io/acme/charts', chart: 'api', targetRevision: '1.0.0' },
        { repoURL: `${REPO}.git`, targetRevision: 'main', ref: 'values' },
      ],
    });
    const parsed = parseApplication(raw);
    if (!parsed.ok) expect.fail(parsed.reason);
    expect(parsed.value.sources.map((s) => [s.repoKey, s.chart, s.ref, s.path])).toEqual([
      [undefined, 'web', undefined, ''],
      [undefined, 'api', undefined, ''],
      ['github.com/acme/gitops', undefined, 'values', ''],
    ]);
  });

  it('prefers sources[] over source, as Argo CD does', () => {
    const raw = application('both', {
      source: gitSource('https://github.com/acme/other'),
      sources: [gitSource(REPO, 'a')],
    });
    const parsed = parseApplication(raw);
    expect(parsed.ok && parsed.value.sources.map((s) => s.repoKey)).toEqual(['github.com/acme/gitops']);
  });

  it('reads the hydrator as a sync source (on the dry repo unless it names its own) and the dry source', () => {
    const raw = application('hydrated', {
      source: gitSource('https://github.com/acme/ignored'),
      sourceHydrator: {
        drySource: { repoURL: REPO, targetRevision: 'HEAD', path: 'dry/web' },
        syncSource: { targetBranch: 'env/prod', path: 'hydrated/web' },
      },
    });
    const parsed = parseApplication(raw);
    if (!parsed.ok) expect.fail(parsed.reason);
    expect(parsed.value.sources).toEqual([
      {
        repoURL: REPO,
        repoKey: 'github.com/acme/gitops',
        targetRevision: 'env/prod',
        path: 'hydrated/web',
        hydrator: 'sync',
      },
      {
        repoURL: REPO,
        repoKey: 'github.com/acme/gitops',
        targetRevision: 'HEAD',
        path: 'dry/web',
        hydrator: 'dry',
      },
    ]);
  });

  it.each([
    ['no automated block', {}, false],
    ['an automated block', { automated: {} }, true],
    ['automated with enabled: false', { automated: { enabled: false } }, false],
    ['automated with enabled: true', { automated: { enabled: true } }, true],
  ])('reads %s as automated=%s', (_name, syncPolicy, expected) => {
    const parsed = parseApplication(application('a', { source: gitSource(REPO), syncPolicy }));
    expect(parsed.ok && parsed.value.automated).toBe(expected);
  });

  it('defaults the project to default and missing revision and path to empty', () => {
    const raw = application('a', { source: { repoURL: REPO }, project: '' });
    const parsed = parseApplication(raw);
    expect(parsed.ok && parsed.value.project).toBe('default');
    expect(parsed.ok && parsed.value.sources[0]).toMatchObject({ targetRevision: '', path: '' });
  });

  it.each([
    ['not an object', 'nope', 'object is not an object'],
    ['no metadata', { spec: {} }, 'metadata is not an object'],
    ['no name', { metadata: { namespace: 'argocd' }, spec: {} }, 'metadata.name is missing'],
    ['no spec', { metadata: { name: 'a', namespace: 'argocd' } }, 'spec is not an object'],
    ['no source at all', application('a', {}), 'spec has no source'],
    [
      'a repoURL that is not a string',
      application('a', { source: { repoURL: 42 } }),
      'spec.source.repoURL is not a string',
    ],
    ['an empty repoURL', application('a', { source: { repoURL: '' } }), 'spec.source.repoURL is missing'],
    [
      'a repoURL that is not a Git URL',
      application('a', { source: gitSource('not a url') }),
      'spec.source.repoURL is not a Git repository URL',
    ],
    [
      'a multi-source app none of whose sources is usable',
      application('a', { sources: [{ path: 'x' }, gitSource('not a url')] }),
      'spec.sources[0].repoURL is missing; spec.sources[1].repoURL is not a Git repository URL',
    ],
    [
      'a multi-source app with a source of the wrong type (the Kubernetes schema forbids it)',
      application('a', { sources: [gitSource(REPO), { repoURL: REPO, targetRevision: 2 }] }),
      'spec.sources[1].targetRevision is not a string',
    ],
    [
      'a sources entry that is not an object',
      application('a', { sources: ['x'] }),
      'spec.sources[0] is not an object',
    ],
    [
      'a manifest-generate-paths annotation that is not a string',
      application('a', { source: gitSource(REPO) }, { [PATHS]: ['apps'] }),
      `annotation ${PATHS} is not a string`,
    ],
    [
      'a hydrator without a sync source',
      application('a', { sourceHydrator: { drySource: gitSource(REPO) } }),
      'spec.sourceHydrator.syncSource is not an object',
    ],
    [
      'a targetRevision that is a number',
      application('a', { source: { repoURL: REPO, targetRevision: 1.0 } }),
      'spec.source.targetRevision is not a string',
    ],
  ])('rejects %s with a reason', (_name, raw, reason) => {
    expect(parseApplication(raw)).toEqual({ ok: false, reason });
  });

  it('leaves out multi-source entries without a usable repoURL and keeps each source at its index', () => {
    const raw = application('partly', {
      sources: [{ targetRevision: 'main', path: 'a' }, gitSource(REPO, 'b'), gitSource('https://x y/z')],
    });
    const parsed = parseApplication(raw);
    if (!parsed.ok) expect.fail(parsed.reason);
    expect(parsed.value.sources.map((s) => [s.position, s.path])).toEqual([[1, 'b']]);
    expect(parsed.value.ignoredSources).toEqual([
      { position: 0, reason: 'repoURL is missing' },
      { position: 2, reason: 'repoURL is not a Git repository URL' },
    ]);
  });

  it('never puts the repository URL (which may hold a token) in a reason', () => {
    const parsed = parseApplication(application('a', { source: gitSource('https://user:s3cret@/nohost') }));
    expect(parsed.ok).toBe(false);
    expect(JSON.stringify(parsed)).not.toContain('s3cret');
  });
});
