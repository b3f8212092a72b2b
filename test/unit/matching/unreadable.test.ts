import { describe, expect, it } from 'vitest';
import { attributeRepoKeys } from '../../../lib/matching/failure-keys.js';
import { buildMatchIndex, type FleetObject } from '../../../lib/matching/match-index.js';
import { unparseableObjects } from '../../../lib/matching/unparseable.js';
import { application, branchPush, files, gitSource, REPO } from './fleet-objects.js';

const PATHS = 'argocd.argoproj.io/manifest-generate-paths';
const OTHER = 'https://github.com/acme/other';
const app = (raw: unknown): FleetObject => ({ cluster: 'hub', kind: 'Application', raw });
const otherPush = branchPush('main', { repo: { urls: [OTHER] } });

describe('a multi-source app with an unusable source', () => {
  const partly = application(
    'partly',
    { sources: [gitSource(REPO, 'apps/web', 'main'), { path: 'values', targetRevision: 'main' }] },
    { [PATHS]: '.' },
  );

  it('is matched and refreshed through its readable source, naming the ignored one', () => {
    const result = buildMatchIndex([app(partly)]).match(branchPush('main'), files('apps/web/d.yaml'));
    expect(result.failures).toEqual([]);
    expect(result.matches.map((m) => [m.target.name, m.decision, m.reason])).toEqual([
      [
        'partly',
        'refreshed',
        'sources[0] follows branch main; paths cover a changed file; sources[1] ignored (repoURL is missing)',
      ],
    ]);
  });

  it('keeps the name of the ignored source in a miss too', () => {
    const [match] = buildMatchIndex([app(partly)]).match(branchPush('main'), files('docs/x')).matches;
    expect(match?.decision).toBe('paths-miss');
    expect(match?.reason).toContain('sources[1] ignored (repoURL is missing)');
  });

  it('is reported as an error to a push of the repository only its ignored source might name', () => {
    const naming = application('naming', {
      sources: [gitSource(REPO, 'a', 'main'), { repoURL: `${OTHER}?ref=main`, targetRevision: 'main' }],
    });
    const result = buildMatchIndex([app(naming)]).match(otherPush, files('a'));
    expect(result.matches).toEqual([]);
    expect(result.failures).toEqual([
      {
        cluster: 'hub',
        kind: 'Application',
        namespace: 'argocd',
        name: 'naming',
        reason: 'sources[1] ignored (repoURL is not a Git repository URL)',
      },
    ]);
  });
});

describe('objects that cannot be parsed', () => {
  it.each([
    ['no metadata.name', { metadata: { namespace: 'argocd' }, spec: { source: gitSource(REPO) } }],
    [
      'a spec that is not an object but names the repository',
      { metadata: { name: 'x' }, spec: `repoURL: ${REPO}` },
    ],
    ['garbage sources', application('x', { sources: [gitSource(REPO), 'junk'] })],
    [
      'a misspelt field and a URL with spaces',
      application('x', { source: { repoUrl: ` ${REPO}.git `, path: 7 } }),
    ],
    [
      'a git generator of an ApplicationSet',
      { kind: 'ApplicationSet', metadata: { name: 's' }, spec: { generators: [{ git: { repoURL: REPO } }] } },
    ],
  ])('with %s is an error under a push to its repository, and only there', (_name, raw) => {
    const index = buildMatchIndex([{ cluster: 'hub', kind: 'Application', raw }]);
    expect(index.match(branchPush('main'), files('a')).failures).toHaveLength(1);
    expect(index.match(otherPush, files('a')).failures).toEqual([]);
  });

  it('finds a Flux spec.url and ignores metadata and status', () => {
    const raw = {
      metadata: { name: 'r', annotations: { url: OTHER } },
      spec: { url: REPO, ref: 'main' },
      status: { artifact: { url: 'https://github.com/acme/artifacts' } },
    };
    expect([...attributeRepoKeys(raw)]).toEqual(['github.com/acme/gitops']);
  });

  it('is not reported to any push when it names no repository, but is listed for reconcile', () => {
    const nameless = app({ metadata: { namespace: 'argocd' }, spec: 'garbage' });
    const index = buildMatchIndex([nameless]);
    expect(index.match(branchPush('main'), files('a')).failures).toEqual([]);
    expect(index.failures).toHaveLength(1);
    expect(unparseableObjects([nameless])).toEqual([
      {
        cluster: 'hub',
        kind: 'Application',
        namespace: 'argocd',
        name: '',
        reason: 'metadata.name is missing',
        repositories: [],
        partial: false,
      },
    ]);
  });
});

describe('unparseableObjects', () => {
  it('lists unreadable objects and partly readable apps with the repositories they might name, not good ones', () => {
    const objects = [
      app(application('fine', { source: gitSource(REPO) })),
      app(application('broken', { source: { repoURL: REPO, targetRevision: 3 } })),
      app(application('partly', { sources: [gitSource(REPO), { repoURL: 'not a url' }] })),
    ];
    expect(unparseableObjects(objects).map((u) => [u.name, u.reason, u.repositories, u.partial])).toEqual([
      ['broken', 'spec.source.targetRevision is not a string', ['github.com/acme/gitops'], false],
      ['partly', 'sources[1] ignored (repoURL is not a Git repository URL)', [], true],
    ]);
  });

  it('never carries the credentials of a URL it read', () => {
    const raw = application('t', {
      source: { repoURL: 'https://bot:s3cret@github.com/acme/gitops', path: 1 },
    });
    expect(JSON.stringify(unparseableObjects([app(raw)]))).not.toContain('s3cret');
  });
});
