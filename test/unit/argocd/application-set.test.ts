import { describe, expect, it } from 'vitest';
import { parseApplicationSet } from '../../../lib/argocd/application-set.js';
import { applicationSet, REPO } from '../matching/fleet-objects.js';

const git = (extra: Record<string, unknown> = {}) => ({ git: { repoURL: REPO, revision: 'HEAD', ...extra } });

describe('parseApplicationSet', () => {
  it('reads a top-level git directories generator with its excludes', () => {
    const raw = applicationSet('apps', [
      git({ directories: [{ path: 'apps/*' }, { path: 'apps/legacy', exclude: true }] }),
    ]);
    expect(parseApplicationSet(raw)).toEqual({
      ok: true,
      value: {
        namespace: 'argocd',
        name: 'apps',
        gitGenerators: [
          {
            where: 'spec.generators[0].git',
            repoURL: REPO,
            repoKey: 'github.com/acme/gitops',
            revision: 'HEAD',
            directories: [
              { path: 'apps/*', exclude: false },
              { path: 'apps/legacy', exclude: true },
            ],
            files: [],
          },
        ],
      },
    });
  });

  it('finds git generators nested in matrix and merge, and ignores other generator kinds', () => {
    const raw = applicationSet('nested', [
      { list: { elements: [] } },
      {
        matrix: {
          generators: [
            { clusters: {} },
            {
              merge: {
                mergeKeys: ['path'],
                generators: [
                  git({ files: [{ path: 'config/**/c.json' }] }),
                  git({ revision: 'release/1.0' }),
                ],
              },
            },
          ],
        },
      },
    ]);
    const parsed = parseApplicationSet(raw);
    if (!parsed.ok) expect.fail(parsed.reason);
    expect(parsed.value.gitGenerators.map((g) => [g.where, g.revision, g.files.length])).toEqual([
      ['spec.generators[1].matrix.generators[1].merge.generators[0].git', 'HEAD', 1],
      ['spec.generators[1].matrix.generators[1].merge.generators[1].git', 'release/1.0', 0],
    ]);
  });

  it('skips a git generator whose repoURL is templated from a sibling generator', () => {
    const raw = applicationSet('templated', [
      {
        matrix: {
          generators: [{ list: { elements: [] } }, { git: { repoURL: '{{ .url }}', revision: 'HEAD' } }],
        },
      },
    ]);
    const parsed = parseApplicationSet(raw);
    expect(parsed.ok && parsed.value.gitGenerators).toEqual([]);
  });

  it.each([
    [
      'no generators',
      { metadata: { name: 'a', namespace: 'argocd' }, spec: {} },
      'spec.generators is missing',
    ],
    [
      'a generator that is not an object',
      applicationSet('a', ['git']),
      'spec.generators[0] is not an object',
    ],
    [
      'a git generator without repoURL',
      applicationSet('a', [{ git: { revision: 'HEAD' } }]),
      'spec.generators[0].git.repoURL is missing',
    ],
    [
      'a git generator with a non-Git repoURL',
      applicationSet('a', [{ git: { repoURL: 'oci://ghcr.io/x' } }]),
      'spec.generators[0].git.repoURL is not a Git repository URL',
    ],
    [
      'a directories entry without a path',
      applicationSet('a', [git({ directories: [{ exclude: true }] })]),
      'spec.generators[0].git.directories[0].path is missing',
    ],
    [
      'files that are not a list',
      applicationSet('a', [git({ files: 'config.json' })]),
      'spec.generators[0].git.files is not a list',
    ],
    [
      'combiners nested without end',
      applicationSet('a', [
        {
          matrix: {
            generators: [
              {
                matrix: {
                  generators: [
                    { matrix: { generators: [{ merge: { generators: [{ matrix: { generators: [] } }] } }] } },
                  ],
                },
              },
            ],
          },
        },
      ]),
      'spec.generators[0].matrix.generators[0].matrix.generators[0].matrix.generators[0].merge.generators[0].matrix is nested too deep',
    ],
  ])('rejects %s with a reason', (_name, raw, reason) => {
    expect(parseApplicationSet(raw)).toEqual({ ok: false, reason });
  });
});
