import { describe, expect, it } from 'vitest';
import { parseApplication } from '../../../lib/argocd/application.js';
import { renderQuery } from '../../../lib/argocd/render-query.js';
import { manifestsUrl, parseManifestsAnswer } from '../../../lib/argocd-api/manifests-query.js';
import { parseArgoCdToken } from '../../../lib/argocd-api/renderers.js';

const REPO = 'https://git.example/org/apps';
const OTHER = 'https://git.example/org/charts';
const SHA = 'a'.repeat(40);

function app(spec: Record<string, unknown>) {
  const raw = { metadata: { name: 'web', namespace: 'team-a' }, spec: { project: 'shop', ...spec } };
  const parsed = parseApplication(raw);
  if (!parsed.ok) throw new Error(parsed.reason);
  return { raw, value: parsed.value };
}
const pushed = (source: { repoURL: string }) => (source.repoURL === REPO ? SHA : undefined);

describe('renderQuery', () => {
  it.each([
    [
      'a single-source app asks for the pushed revision',
      { source: { repoURL: REPO, path: 'web', targetRevision: 'main' } },
      { name: 'web', appNamespace: 'team-a', project: 'shop', revision: SHA },
    ],
    [
      'a multi-source app names each pushed source by its 1-based position',
      {
        sources: [
          { repoURL: OTHER, chart: 'web', targetRevision: '1.2.3' },
          { repoURL: REPO, targetRevision: 'main', ref: 'values' },
          { repoURL: REPO, path: 'extra', targetRevision: 'main' },
        ],
      },
      {
        name: 'web',
        appNamespace: 'team-a',
        project: 'shop',
        sources: [
          { position: 2, revision: SHA },
          { position: 3, revision: SHA },
        ],
      },
    ],
    [
      'a hydrator app renders its dry source',
      {
        sourceHydrator: {
          drySource: { repoURL: REPO, path: 'dry', targetRevision: 'main' },
          syncSource: { targetBranch: 'env/prod', path: 'prod' },
        },
      },
      { name: 'web', appNamespace: 'team-a', project: 'shop', revision: SHA },
    ],
  ])('%s', (_, spec, expected) => {
    const { raw, value } = app(spec);
    expect(renderQuery(raw, value, pushed)).toEqual(expected);
  });

  it('asks nothing when no source moves', () => {
    const { raw, value } = app({ source: { repoURL: OTHER, path: 'web', targetRevision: 'main' } });
    expect(renderQuery(raw, value, pushed)).toBeUndefined();
  });
});

describe('manifestsUrl and parseManifestsAnswer', () => {
  it('builds the path under argocdUrl with repeated sourcePositions and revisions', () => {
    const url = manifestsUrl('https://argocd.example/argocd/', {
      name: 'a b',
      appNamespace: 'team-a',
      sources: [
        { position: 1, revision: 'x' },
        { position: 3, revision: 'y' },
      ],
    });
    expect(url.toString()).toBe(
      'https://argocd.example/argocd/api/v1/applications/a%20b/manifests?appNamespace=team-a&sourcePositions=1&revisions=x&sourcePositions=3&revisions=y',
    );
  });

  it('opens each manifest JSON string into an object', () => {
    const answer = JSON.stringify({
      manifests: ['{"kind":"A"}', '{"kind":"B"}'],
      revision: SHA,
      sourceType: 'Helm',
    });
    expect(parseManifestsAnswer(answer)).toEqual({
      documents: [
        { path: 'argocd:manifests[0]', doc: { kind: 'A' } },
        { path: 'argocd:manifests[1]', doc: { kind: 'B' } },
      ],
      revision: SHA,
      sourceType: 'Helm',
    });
  });

  it.each([
    ['not JSON', 'nope', 'not JSON'],
    ['a manifest that is not an object', '{"manifests":["[1]"]}', 'manifests[0] is not a JSON object'],
    ['manifests that are not a list', '{"manifests":"x"}', 'manifests is not a list'],
  ])('rejects an answer that is %s', (_, body, message) => {
    expect(() => parseManifestsAnswer(body)).toThrow(message);
  });
});

describe('parseArgoCdToken', () => {
  it.each([
    ['a plain token', ' abc.def \n', 'abc.def'],
    ['JSON with a token', '{"token":"abc"}', 'abc'],
  ])('reads %s', (_, secret, token) => {
    expect(parseArgoCdToken(secret)).toBe(token);
  });

  it.each([[''], ['{"password":"hunter2"}'], ['two words']])('rejects %j without quoting it', (secret) => {
    expect(() => parseArgoCdToken(secret)).toThrow(/Argo CD token secret/);
    try {
      parseArgoCdToken(secret);
    } catch (error) {
      if (secret !== '') expect((error as Error).message).not.toContain(secret);
    }
  });
});
