import { describe, expect, it } from 'vitest';
import { judgeSource, planRegistryCatchUp } from '../../../lib/reconcile/registry-catch-up.js';
import type { RegistrySource } from '../../../lib/reconcile/registry-sources.js';
import type { RepositoryImage } from '../../../lib/registry/ecr-repository.js';

const HOST = '123456789012.dkr.ecr.eu-west-1.amazonaws.com';
const d = (n: number) => `sha256:${n.toString(16).padStart(64, '0')}`;
const source = (over: Partial<RegistrySource> = {}): RegistrySource => ({
  cluster: 'hub',
  namespace: 'argocd',
  name: 'web',
  source: 0,
  imageKey: `${HOST}/charts/web`,
  targetRevision: '^1.0.0',
  helm: false,
  synced: d(1),
  ...over,
});
const images: RepositoryImage[] = [
  { digest: d(1), tags: ['1.3.0'], pushedAt: 1_000 },
  { digest: d(2), tags: ['1.4.0', 'stable'], pushedAt: 2_000 },
  { digest: d(3), tags: ['2.0.0'], pushedAt: 3_000 },
  { digest: d(4), tags: ['latest', 'main'], pushedAt: 4_000 },
];

describe('judgeSource: an ECR source against its repository images', () => {
  it.each([
    ['an exact tag moved to another digest (OCI)', { targetRevision: 'stable' }, 'behind', 'stable', d(2)],
    ['an exact tag at the digest Argo CD reports', { targetRevision: 'stable', synced: d(2) }, 'current'],
    ['a semver constraint with a newer version tag', {}, 'behind', '1.4.0', d(2)],
    ['a semver constraint already at its highest tag', { synced: d(2) }, 'current'],
    ['a constraint that takes a major', { targetRevision: '>=1.0.0' }, 'behind', '2.0.0', d(3)],
    ['an empty revision (latest)', { targetRevision: '' }, 'behind', 'latest', d(4)],
    ['a Helm chart behind under a constraint', { helm: true, synced: '1.3.0' }, 'behind', '1.4.0', d(2)],
    ['a Helm chart at the highest version', { helm: true, synced: '1.4.0' }, 'current'],
    ['a Helm chart already later than any tag', { helm: true, synced: '1.9.0' }, 'current'],
    ['a digest pin', { targetRevision: d(9) }, 'current'],
  ] as const)('%s', (_name, over: Partial<RegistrySource>, kind, tag?: string, digest?: string) => {
    const judged = judgeSource(source(over), images);
    expect(judged.kind).toBe(kind);
    if (judged.kind === 'behind') expect({ tag: judged.tag, digest: judged.digest }).toEqual({ tag, digest });
  });

  it('leaves a source Argo CD never compared (not behind anything yet)', () => {
    const { synced: _synced, ...never } = source();
    expect(judgeSource(never, images)).toEqual({ kind: 'current', why: 'not compared yet' });
  });

  it('finds no match, with the reason, when the only newer tags are not versions', () => {
    const only = [{ digest: d(4), tags: ['latest', 'main'] }];
    expect(judgeSource(source(), only)).toEqual({
      kind: 'miss',
      why: "no tag follows '^1.0.0': targetRevision is the constraint '^1.0.0' and tag latest is not a version",
    });
    // A non-version tag pushed last never wins over the highest version a constraint accepts.
    expect(judgeSource(source(), images)).toMatchObject({ kind: 'behind', tag: '1.4.0' });
  });

  it('finds no match when the exact tag is not in the repository', () => {
    expect(judgeSource(source({ targetRevision: '9.9.9' }), images)).toMatchObject({ kind: 'miss' });
  });
});

describe('planRegistryCatchUp', () => {
  it('groups the apps behind one (repository, digest, tag) into one candidate', () => {
    const plan = planRegistryCatchUp(
      [
        source(),
        source({ cluster: 'spoke', source: 1 }),
        source({ name: 'web-helm', helm: true, synced: '1.3.0', targetRevision: '1.x' }),
        source({ name: 'pinned', targetRevision: '1.3.0' }),
        source({ name: 'other', imageKey: `${HOST}/charts/unread` }),
      ],
      (key) => (key.endsWith('/charts/web') ? images : undefined),
    );
    expect(plan.candidates).toHaveLength(1);
    const [candidate] = plan.candidates;
    expect(candidate?.key).toBe(`${HOST}/charts/web@${d(2)}:1.4.0`);
    expect(candidate?.image).toEqual({
      host: HOST,
      repository: 'charts/web',
      tag: '1.4.0',
      digest: d(2),
      account: '123456789012',
      region: 'eu-west-1',
    });
    expect(candidate?.apps.map((a) => `${a.cluster}/${a.name}`)).toEqual([
      'hub/web',
      'spoke/web',
      'hub/web-helm',
    ]);
    expect(candidate?.pushedAt).toBe(2_000);
    expect(plan.misses).toEqual([]);
  });

  it('reports misses and plans nothing when every app is synced at what its tag points at', () => {
    const plan = planRegistryCatchUp(
      [source({ synced: d(2) }), source({ name: 'nightly', targetRevision: '>=3.0.0' })],
      () => images,
    );
    expect(plan.candidates).toEqual([]);
    expect(plan.misses).toEqual([
      expect.objectContaining({
        name: 'nightly',
        reason:
          "no tag follows '>=3.0.0': targetRevision is the constraint '>=3.0.0' and tag stable is not a version",
      }),
    ]);
  });
});
