import { describe, expect, it } from 'vitest';
import {
  type BehindApp,
  type BehindSource,
  behindSources,
  groupMissedPushes,
  nextMarkers,
  type SourceResolution,
} from '../../../lib/reconcile/behind.js';
import { type TrackedApp, trackApplication } from '../../../lib/reconcile/tracked-app.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const REPO = { url: 'https://git.example/org/gitops' };
const KEY = 'git.example/org/gitops';

function tracked(status: Record<string, unknown>, sources?: unknown[]): TrackedApp {
  const raw = {
    metadata: { name: 'web', namespace: 'argocd' },
    spec: sources ? { sources } : { source: { repoURL: REPO.url, path: 'apps/web', targetRevision: 'main' } },
    status: { sync: status },
  };
  const result = trackApplication('hub', raw);
  if (!result.ok) throw new Error(result.reason);
  return result.value;
}

const resolved = (sha: string, via: 'ref' | 'commit' | 'semver' = 'ref', ref = 'refs/heads/main') =>
  ({
    kind: 'resolved',
    repo: REPO,
    repoKey: KEY,
    resolved: via === 'commit' ? { found: true, sha, via } : { found: true, sha, ref, via },
    head: 'refs/heads/main',
  }) as SourceResolution;

describe('behindSources', () => {
  it.each<[string, Record<string, unknown>, SourceResolution, number]>([
    ['an app compared at an older commit is behind', { revision: A }, resolved(B), 1],
    ['an app at the current commit is not', { revision: B }, resolved(B), 0],
    ['the comparison ignores case', { revision: B.toUpperCase() }, resolved(B), 0],
    ['an app never compared is not behind anything yet', {}, resolved(B), 0],
    ['a commit-pinned source never moves', { revision: A }, resolved(B, 'commit'), 0],
    ['a source of an unlisted repository is not judged', { revision: A }, { kind: 'unlisted' }, 0],
    ['a Helm source is not judged', { revision: A }, { kind: 'not-git' }, 0],
  ])('%s', (_name, status, resolution, expected) => {
    expect(behindSources(tracked(status), () => resolution).behind).toHaveLength(expected);
  });

  it('judges each source of a multi-source app against its own entry', () => {
    const app = tracked({ revisions: [A, B] }, [
      { repoURL: REPO.url, path: 'apps/web', targetRevision: 'main' },
      { repoURL: REPO.url, targetRevision: 'values', ref: 'values' },
    ]);
    const check = behindSources(app, (s) =>
      s.index === 0 ? resolved(A) : resolved(C, 'ref', 'refs/heads/values'),
    );
    expect(check.behind).toEqual([
      expect.objectContaining({ source: 1, synced: B, sha: C, ref: 'refs/heads/values' }),
    ]);
  });

  it('marks sources it could not judge as unknown', () => {
    const check = behindSources(tracked({ revision: A }), () => ({ kind: 'unknown', reason: 'HTTP 500' }));
    expect([...check.unknown]).toEqual([0]);
  });
});

describe('nextMarkers', () => {
  const behind = (source: number, sha: string): BehindSource => ({
    source,
    sha,
    synced: A,
    repoKey: KEY,
    repo: REPO,
    ref: 'refs/heads/main',
  });

  it.each([
    [
      'a source still behind the same commit keeps its time',
      [{ source: 0, sha: B, since: 100 }],
      [behind(0, B)],
      [],
      [{ source: 0, sha: B, since: 100 }],
    ],
    [
      'a newer commit starts its own grace period',
      [{ source: 0, sha: B, since: 100 }],
      [behind(0, C)],
      [],
      [{ source: 0, sha: C, since: 500 }],
    ],
    ['a source caught up is forgotten', [{ source: 0, sha: B, since: 100 }], [], [], []],
    [
      'a source this pass could not judge keeps its marker',
      [{ source: 1, sha: B, since: 100 }],
      [],
      [1],
      [{ source: 1, sha: B, since: 100 }],
    ],
  ])('%s', (_name, previous, behindNow, unknown, expected) => {
    expect(nextMarkers(previous, { behind: behindNow, unknown: new Set(unknown) }, 500)).toEqual(expected);
  });
});

describe('groupMissedPushes', () => {
  const entry = (cluster: string, name: string, sha: string, ref: string, since: number) => ({
    app: { cluster, namespace: 'argocd', name, synced: A, since } satisfies BehindApp,
    behind: { source: 0, sha, synced: A, repoKey: KEY, repo: REPO, ref } satisfies BehindSource,
  });

  it('makes one push per repository, ref and commit, behind since the earliest app', () => {
    const pushes = groupMissedPushes([
      entry('hub-a', 'web', B, 'refs/heads/main', 300),
      entry('hub-b', 'web', B, 'refs/heads/main', 100),
      entry('hub-a', 'web', B, 'refs/heads/main', 300),
      entry('hub-a', 'api', C, 'refs/tags/v1.2.0', 200),
    ]);
    expect(pushes.map((p) => [p.key, p.apps.length, p.since])).toEqual([
      [`${KEY}:refs/heads/main:${B}`, 2, 100],
      [`${KEY}:refs/tags/v1.2.0:${C}`, 1, 200],
    ]);
  });
});
