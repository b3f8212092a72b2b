import { describe, expect, it } from 'vitest';
import { parseApplication } from '../../../lib/argocd/application.js';
import {
  FOLLOWS_ANNOTATION,
  firstPinPatch,
  followedRevision,
  followedRevisions,
  movePinPatch,
  pinnedRepositoryUrls,
  unpinPatch,
} from '../../../lib/argocd/pin.js';
import { ownerRevertsPin, pinRevertedByOwner } from '../../../lib/argocd/pin-owner.js';
import { revisionMatches } from '../../../lib/matching/revision.js';

const REPO = 'https://github.com/acme/platform.git';
const VALUES = 'https://github.com/acme/values';
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);

const single = (annotations: Record<string, string> = {}, targetRevision = 'main') => ({
  metadata: { name: 'web', namespace: 'argocd', annotations },
  spec: { source: { repoURL: REPO, path: 'apps/web', targetRevision } },
  status: { sync: { revision: A } },
});

const multi = (annotations: Record<string, string> = {}, revisions = ['main', 'release']) => ({
  metadata: { name: 'web', namespace: 'argocd', annotations },
  spec: {
    sources: [
      { repoURL: 'https://charts.example/', chart: 'web', targetRevision: '1.2.3' },
      { repoURL: REPO, path: 'apps/web', targetRevision: revisions[0] },
      { repoURL: VALUES, ref: 'values', targetRevision: revisions[1] },
    ],
  },
  status: { sync: { revisions: ['1.2.3', A, B] } },
});

describe('the precondition of a multi-source pin patch', () => {
  const withVersion = <T extends { metadata: object }>(app: T) => ({
    ...app,
    metadata: { ...app.metadata, resourceVersion: '41' },
  });

  it('carries the resourceVersion the whole sources array was read at', () => {
    const app = withVersion(multi());
    for (const patch of [
      firstPinPatch(app, [REPO]),
      movePinPatch(app, 1, C),
      unpinPatch(withVersion(multi({ [FOLLOWS_ANNOTATION]: '{"1":"main"}' }))),
    ]) {
      expect(patch).toMatchObject({ metadata: { resourceVersion: '41' } });
    }
  });

  it('leaves a single-source patch unconditional (it sets one field, nothing else is written back)', () => {
    const patch = firstPinPatch(withVersion(single()), [REPO]) as { metadata: object };
    expect(patch.metadata).toEqual({ annotations: { [FOLLOWS_ANNOTATION]: 'main' } });
    expect(movePinPatch(withVersion(single()), 0, C)).toEqual({ spec: { source: { targetRevision: C } } });
  });
});

describe('firstPinPatch', () => {
  it('pins a single source to the commit it is synced at and records the branch as a plain string', () => {
    expect(firstPinPatch(single(), ['https://github.com/acme/platform'])).toEqual({
      metadata: { annotations: { [FOLLOWS_ANNOTATION]: 'main' } },
      spec: { source: { targetRevision: A } },
    });
  });

  it('pins only the pinned repository’s sources of a multi-source app, sending the whole array', () => {
    const patch = firstPinPatch(multi(), [REPO]);
    expect(patch).toEqual({
      metadata: { annotations: { [FOLLOWS_ANNOTATION]: '{"1":"main"}' } },
      spec: {
        sources: [
          { repoURL: 'https://charts.example/', chart: 'web', targetRevision: '1.2.3' },
          { repoURL: REPO, path: 'apps/web', targetRevision: A },
          { repoURL: VALUES, ref: 'values', targetRevision: 'release' },
        ],
      },
    });
  });

  it('adds a second pinned repository to the annotation, keeping what it followed already', () => {
    const pinned = multi({ [FOLLOWS_ANNOTATION]: '{"1":"main"}' }, [A, 'release']);
    expect(firstPinPatch(pinned, [REPO, VALUES])?.metadata).toEqual({
      annotations: { [FOLLOWS_ANNOTATION]: '{"1":"main","2":"release"}' },
    });
  });

  it('does nothing when already pinned, when no source is of a pinned repo, or the synced commit is unknown', () => {
    expect(firstPinPatch(single({ [FOLLOWS_ANNOTATION]: 'main' }, A), [REPO])).toBeUndefined();
    expect(firstPinPatch(single(), ['https://github.com/acme/other'])).toBeUndefined();
    expect(firstPinPatch({ ...single(), status: {} }, [REPO])).toBeUndefined();
    expect(firstPinPatch({ ...single(), status: { sync: { revision: 'main' } } }, [REPO])).toBeUndefined();
  });
});

describe('movePinPatch', () => {
  it('moves a single source to the pushed SHA (lower case)', () => {
    expect(movePinPatch(single({ [FOLLOWS_ANNOTATION]: 'main' }, A), 0, C.toUpperCase())).toEqual({
      spec: { source: { targetRevision: C } },
    });
  });

  it('replaces the whole sources array with only that source changed', () => {
    const patch = movePinPatch(multi({ [FOLLOWS_ANNOTATION]: '{"1":"main"}' }, [A, 'release']), 1, C) as {
      spec: { sources: { targetRevision: string }[] };
    };
    expect(patch.spec.sources.map((s) => s.targetRevision)).toEqual(['1.2.3', C, 'release']);
  });

  it('refuses anything but a full SHA', () => {
    expect(movePinPatch(single(), 0, 'main')).toBeUndefined();
    expect(movePinPatch(single(), 0, C.slice(0, 12))).toBeUndefined();
  });
});

describe('followedRevision', () => {
  it('reads the annotation for a pinned source and the spec for the others', () => {
    const app = multi({ [FOLLOWS_ANNOTATION]: '{"1":"main"}' }, [A, 'release']);
    expect(followedRevision(app, 1)).toBe('main');
    expect(followedRevision(app, 2)).toBe('release');
    expect(followedRevision(single({ [FOLLOWS_ANNOTATION]: 'main' }, A), 0)).toBe('main');
    expect(followedRevision(single(), 0)).toBe('main');
  });

  it('treats an unreadable annotation on a multi-source app as no pin', () => {
    for (const value of ['not json', '[1]', '{"x":"main"}', '{"1":7}'])
      expect(followedRevisions(multi({ [FOLLOWS_ANNOTATION]: value }))).toEqual(new Map());
  });
});

describe('unpinPatch', () => {
  it('restores every followed revision and removes the annotation', () => {
    expect(unpinPatch(single({ [FOLLOWS_ANNOTATION]: 'main' }, A))).toEqual({
      metadata: { annotations: { [FOLLOWS_ANNOTATION]: null } },
      spec: { source: { targetRevision: 'main' } },
    });
    const patch = unpinPatch(multi({ [FOLLOWS_ANNOTATION]: '{"1":"main","2":"release"}' }, [A, B])) as {
      spec: { sources: { targetRevision: string }[] };
    };
    expect(patch.spec.sources.map((s) => s.targetRevision)).toEqual(['1.2.3', 'main', 'release']);
  });

  it('is nothing for an app that is not pinned', () => {
    expect(unpinPatch(single())).toBeUndefined();
  });
});

describe('pinRevertedByOwner', () => {
  const appSet = (ignore: unknown[]) => ({
    kind: 'ApplicationSet' as const,
    name: 'services',
    object: { spec: { ignoreApplicationDifferences: ignore } },
  });
  const parent = (ignoreDifferences: unknown[], syncOptions: string[]) => ({
    kind: 'Application' as const,
    name: 'root',
    object: { spec: { ignoreDifferences, syncPolicy: { syncOptions } } },
  });

  it.each([
    [[{ jqPathExpressions: ['.spec.source.targetRevision'] }]],
    [[{ jsonPointers: ['/spec/source/targetRevision'] }]],
    [[{ jsonPointers: ['/spec/source'] }]],
    [[{ name: 'web', jsonPointers: ['/spec'] }]],
  ])('lets an ApplicationSet that ignores targetRevision keep the pin: %j', (ignore) => {
    expect(ownerRevertsPin(single(), appSet(ignore), [0])).toBeUndefined();
  });

  it('covers each pinned source of a multi-source app: [] for any index, [N] for that one', () => {
    const app = multi();
    expect(
      ownerRevertsPin(app, appSet([{ jqPathExpressions: ['.spec.sources[].targetRevision'] }]), [1, 2]),
    ).toBe(undefined);
    expect(
      ownerRevertsPin(app, appSet([{ jqPathExpressions: ['.spec.sources[1].targetRevision'] }]), [1]),
    ).toBe(undefined);
    expect(
      ownerRevertsPin(app, appSet([{ jqPathExpressions: ['.spec.sources[1].targetRevision'] }]), [1, 2]),
    ).toContain('ApplicationSet services');
  });

  it('raises pin-reverted-by-owner (high) for an ApplicationSet without it, or ignoring another app', () => {
    for (const ignore of [
      [],
      [{ name: 'api', jsonPointers: ['/spec/source/targetRevision'] }],
      [{ jsonPointers: ['/spec/destination'] }],
    ]) {
      const finding = pinRevertedByOwner(single(), [appSet(ignore)], { cluster: 'hub', sourceIndexes: [0] });
      expect(finding).toMatchObject({
        rule: 'pin-reverted-by-owner',
        severity: 'high',
        cluster: 'hub',
        app: 'web',
      });
    }
  });

  it('needs both ignoreDifferences and RespectIgnoreDifferences=true on an app-of-apps parent', () => {
    const ignore = [
      { group: 'argoproj.io', kind: 'Application', jsonPointers: ['/spec/source/targetRevision'] },
    ];
    const ok = { cluster: 'hub', sourceIndexes: [0] };
    expect(
      pinRevertedByOwner(single(), [parent(ignore, ['RespectIgnoreDifferences=true'])], ok),
    ).toBeUndefined();
    expect(pinRevertedByOwner(single(), [parent(ignore, [])], ok)?.message).toContain(
      'lacks RespectIgnoreDifferences=true',
    );
    expect(
      pinRevertedByOwner(single(), [parent([], ['RespectIgnoreDifferences=true'])], ok)?.message,
    ).toContain('has no ignoreDifferences');
    const otherKind = [{ group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/source/targetRevision'] }];
    expect(
      pinRevertedByOwner(single(), [parent(otherKind, ['RespectIgnoreDifferences=true'])], ok),
    ).toBeDefined();
  });

  it('is nothing with no owner', () => {
    expect(pinRevertedByOwner(single(), [], { cluster: 'hub', sourceIndexes: [0] })).toBeUndefined();
  });
});

describe('matching reads a pinned source by the revision it follows', () => {
  const push = { refType: 'branch' as const, refName: 'main', touchedDefaultBranch: true };

  it('parses a pinned single source as following main, the pin kept in pinnedAt', () => {
    const parsed = parseApplication(single({ [FOLLOWS_ANNOTATION]: 'main' }, A.toUpperCase()));
    expect(parsed.ok && parsed.value.sources).toEqual([
      expect.objectContaining({ targetRevision: 'main', pinnedAt: A }),
    ]);
    const source = parsed.ok ? parsed.value.sources[0] : undefined;
    expect(revisionMatches(source?.targetRevision ?? '', push)).toBe(true);
    // Without the pin's annotation the SHA never follows a push.
    const raw = parseApplication(single({}, A));
    expect(raw.ok && revisionMatches(raw.value.sources[0]?.targetRevision ?? '', push)).toBe(false);
  });

  it('follows per source index in a multi-source app, and ignores the annotation once someone unpinned', () => {
    const parsed = parseApplication(multi({ [FOLLOWS_ANNOTATION]: '{"1":"main"}' }, [A, 'release']));
    expect(parsed.ok && parsed.value.sources.map((s) => [s.targetRevision, s.pinnedAt])).toEqual([
      ['1.2.3', undefined],
      ['main', A],
      ['release', undefined],
    ]);
    const unpinned = parseApplication(single({ [FOLLOWS_ANNOTATION]: 'main' }, 'develop'));
    expect(unpinned.ok && unpinned.value.sources[0]?.targetRevision).toBe('develop');
  });
});

describe('pinnedRepositoryUrls', () => {
  it('keeps the repositories with control: pin, advisory being the default', () => {
    const repos = [
      { url: REPO, control: 'pin' },
      { url: VALUES, control: 'advisory' },
      { url: 'https://x/y' },
    ];
    expect(pinnedRepositoryUrls(repos)).toEqual([REPO]);
  });
});
