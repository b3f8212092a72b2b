import { describe, expect, it } from 'vitest';
import { createMatchIndexCache } from '../../../lib/matching/index-cache.js';
import type { FleetObject } from '../../../lib/matching/match-index.js';
import { application, branchPush, files, gitSource, REPO } from './fleet-objects.js';

const PATHS = 'argocd.argoproj.io/manifest-generate-paths';

function listed(name: string, uid: string, resourceVersion: string, path = `apps/${name}`): FleetObject {
  const raw = application(name, { source: gitSource(REPO, path, 'main') }, { [PATHS]: '.' });
  Object.assign(raw.metadata as object, { uid, resourceVersion });
  return { cluster: 'hub', kind: 'Application', raw };
}

const refreshed = (cache: ReturnType<typeof createMatchIndexCache>, objects: FleetObject[], file: string) =>
  cache
    .indexFor('hub', objects)
    .match(branchPush('main'), files(file))
    .matches.filter((m) => m.decision === 'refreshed')
    .map((m) => m.target.name);

describe('createMatchIndexCache', () => {
  it('parses only new and changed objects and drops deleted ones', () => {
    const cache = createMatchIndexCache();
    const first = [listed('web', 'u1', '10'), listed('api', 'u2', '11'), listed('db', 'u3', '12')];
    expect(refreshed(cache, first, 'apps/web/x')).toEqual(['web']);
    expect(cache.lastUpdate('hub')).toEqual({ parsed: 3, reused: 0, dropped: 0, statusOnly: 0 });

    // api moved to another path (a new resourceVersion), db was deleted, cache was created.
    const second = [
      listed('web', 'u1', '10'),
      listed('api', 'u2', '15', 'apps/web'),
      listed('cache', 'u4', '16'),
    ];
    expect(refreshed(cache, second, 'apps/web/x').sort()).toEqual(['api', 'web']);
    expect(cache.lastUpdate('hub')).toEqual({ parsed: 2, reused: 1, dropped: 1, statusOnly: 0 });
    expect(refreshed(cache, second, 'apps/db/x')).toEqual([]);
  });

  it('hands out the same parsed object for an unchanged listing, and a new one once it changed', () => {
    const cache = createMatchIndexCache();
    const first = cache.indexFor('hub', [listed('web', 'u1', '10')]).match(branchPush('main'), files('a'));
    const again = cache.indexFor('hub', [listed('web', 'u1', '10')]).match(branchPush('main'), files('a'));
    const changed = cache.indexFor('hub', [listed('web', 'u1', '11')]).match(branchPush('main'), files('a'));
    expect(again.matches[0]?.object).toBe(first.matches[0]?.object);
    expect(changed.matches[0]?.object).not.toBe(first.matches[0]?.object);
  });

  it('keeps clusters apart', () => {
    const cache = createMatchIndexCache();
    cache.indexFor('hub', [listed('web', 'u1', '10')]);
    const spoke = cache.indexFor('spoke', []);
    expect(spoke.match(branchPush('main'), files('apps/web/x')).matches).toEqual([]);
    expect(cache.lastUpdate('hub')).toEqual({ parsed: 1, reused: 0, dropped: 0, statusOnly: 0 });
  });

  it('parses objects without a uid or resourceVersion every time, and a uid listed twice', () => {
    const cache = createMatchIndexCache();
    const bare = {
      cluster: 'hub',
      kind: 'Application',
      raw: application('bare', { source: gitSource(REPO) }),
    } as const;
    const objects = [bare, listed('a', 'same', '1'), listed('b', 'same', '1')];
    cache.indexFor('hub', objects);
    const index = cache.indexFor('hub', objects);
    expect(cache.lastUpdate('hub')).toEqual({ parsed: 2, reused: 1, dropped: 0, statusOnly: 0 });
    const names = index.match(branchPush('main'), files('x')).matches.map((m) => m.target.name);
    expect(names.sort()).toEqual(['a', 'b', 'bare']);
  });

  it('keeps unreadable objects in the failures until they are fixed', () => {
    const cache = createMatchIndexCache();
    const broken = listed('web', 'u1', '1');
    (broken.raw as { spec: unknown }).spec = 'nope';
    expect(cache.indexFor('hub', [broken]).failures).toHaveLength(1);
    expect(cache.indexFor('hub', [broken]).failures).toHaveLength(1);
    expect(cache.indexFor('hub', [listed('web', 'u1', '2')]).failures).toEqual([]);
  });
});

describe('createMatchIndexCache relisting out of step', () => {
  const names = (cache: ReturnType<typeof createMatchIndexCache>, objects: FleetObject[]) =>
    cache
      .indexFor('hub', objects)
      .match(branchPush('main'), files('apps/x'))
      .matches.map((m) => m.target.name)
      .sort();
  const fleet = (...specs: [string, string][]) =>
    specs.map(([name, rv]) => listed(name, `uid-${name}`, rv, `apps/${name}`));

  it.each([
    ['an object inserted in the middle', fleet(['a', '1'], ['n', '9'], ['b', '2'], ['c', '3']), 1, 3, 0],
    ['an object dropped from the middle', fleet(['a', '1'], ['c', '3']), 0, 2, 1],
    ['the first object dropped', fleet(['b', '2'], ['c', '3']), 0, 2, 1],
    ['the last object dropped', fleet(['a', '1'], ['b', '2']), 0, 2, 1],
    ['the listing reversed', fleet(['c', '3'], ['b', '2'], ['a', '1']), 0, 3, 0],
    [
      'one object changed and one moved',
      [listed('b', 'uid-b', '5', 'apps/b2'), ...fleet(['a', '1'], ['c', '3'])],
      1,
      2,
      0,
    ],
    ['everything replaced', fleet(['x', '1'], ['y', '2']), 2, 0, 3],
  ])('reuses what it can when %s', (_, second, parsed, reused, dropped) => {
    const cache = createMatchIndexCache();
    cache.indexFor('hub', fleet(['a', '1'], ['b', '2'], ['c', '3']));
    expect(names(cache, second)).toEqual(
      second.map((o) => (o.raw as { metadata: { name: string } }).metadata.name).sort(),
    );
    expect(cache.lastUpdate('hub')).toEqual({ parsed, reused, dropped, statusOnly: 0 });
    // Listed once more as is: every object is met in step and kept.
    expect(names(cache, second)).toHaveLength(second.length);
    expect(cache.lastUpdate('hub')).toEqual({ parsed: 0, reused: second.length, dropped: 0, statusOnly: 0 });
  });

  it('matches a changed object by its new spec after the listing shifted around it', () => {
    const cache = createMatchIndexCache();
    cache.indexFor('hub', fleet(['a', '1'], ['b', '2'], ['c', '3']));
    const moved = listed('c', 'uid-c', '7', 'apps/elsewhere');
    const index = cache.indexFor('hub', [listed('n', 'uid-n', '8'), ...fleet(['a', '1'], ['b', '2']), moved]);
    const refreshedBy = (file: string) =>
      index
        .match(branchPush('main'), files(file))
        .matches.filter((m) => m.decision === 'refreshed')
        .map((m) => m.target.name);
    expect(refreshedBy('apps/elsewhere/x')).toEqual(['c']);
    expect(refreshedBy('apps/c/x')).toEqual([]);
  });
});

describe('createMatchIndexCache bounds', () => {
  const app = (cluster: string, n: number): FleetObject => ({
    ...listed(`app-${n}`, `${cluster}-${n}`, '1'),
    cluster,
  });
  const clusterOf = (cluster: string, size: number) =>
    Array.from({ length: size }, (_, n) => app(cluster, n));

  it('forgets the least recently indexed clusters beyond its object bound, never the one just indexed', () => {
    const cache = createMatchIndexCache({ objects: 5, clusters: 10 });
    cache.indexFor('a', clusterOf('a', 2));
    cache.indexFor('b', clusterOf('b', 2));
    cache.indexFor('a', clusterOf('a', 2)); // a is now the most recent
    expect(cache.clusters()).toEqual(['b', 'a']);
    cache.indexFor('c', clusterOf('c', 2));
    expect(cache.clusters()).toEqual(['a', 'c']);
    cache.indexFor('big', clusterOf('big', 8));
    expect(cache.clusters()).toEqual(['big']);
    expect(cache.lastUpdate('big')).toEqual({ parsed: 8, reused: 0, dropped: 0, statusOnly: 0 });
  });

  it('forgets the least recently indexed clusters beyond its cluster bound', () => {
    const cache = createMatchIndexCache({ objects: 100, clusters: 2 });
    for (const name of ['a', 'b', 'c']) cache.indexFor(name, clusterOf(name, 1));
    expect(cache.clusters()).toEqual(['b', 'c']);
    // A forgotten cluster is indexed from scratch, and decides as before.
    cache.indexFor('a', clusterOf('a', 1));
    expect(cache.lastUpdate('a')).toEqual({ parsed: 1, reused: 0, dropped: 0, statusOnly: 0 });
    expect(cache.clusters()).toEqual(['c', 'a']);
  });
});

describe('createMatchIndexCache after Argo CD wrote an app status (a new resourceVersion)', () => {
  const withStatus = (object: FleetObject, resourceVersion: string, status: unknown): FleetObject => {
    const raw = structuredClone(object.raw) as Record<string, unknown> & {
      metadata: Record<string, unknown>;
    };
    raw.metadata.resourceVersion = resourceVersion;
    raw.status = status;
    return { ...object, raw };
  };

  it('keeps the parse when only the status changed, and hands out the new object for its status', () => {
    const cache = createMatchIndexCache();
    const first = listed('web', 'u1', '10');
    const before = cache.indexFor('hub', [first]).match(branchPush('main'), files('apps/web/x'));
    const written = withStatus(first, '11', { reconciledAt: '2026-12-01T10:00:00Z' });
    const after = cache.indexFor('hub', [written]).match(branchPush('main'), files('apps/web/x'));
    expect(cache.lastUpdate('hub')).toEqual({ parsed: 0, reused: 0, dropped: 0, statusOnly: 1 });
    expect(after.matches.map((m) => [m.target.name, m.decision])).toEqual([['web', 'refreshed']]);
    expect(after.matches[0]?.object.raw).toBe(written.raw);
    expect(after.matches[0]?.object.value).toBe(before.matches[0]?.object.value);
  });

  it('keeps the parse when a spec field matching does not read changed, and hands out the new object', () => {
    const cache = createMatchIndexCache();
    const first = listed('web', 'u1', '10');
    cache.indexFor('hub', [first]);
    const next = withStatus(first, '11', {});
    Object.assign(next.raw as object, {
      spec: { ...((next.raw as Raw).spec as object), revisionHistoryLimit: 3 },
    });
    const index = cache.indexFor('hub', [next]);
    expect(cache.lastUpdate('hub')).toEqual({ parsed: 0, reused: 0, dropped: 0, statusOnly: 1 });
    expect(index.match(branchPush('main'), files('apps/web/x')).matches[0]?.object.raw).toBe(next.raw);
  });

  it.each([
    ['an annotation', (raw: Raw) => Object.assign(raw.metadata.annotations as object, { [PATHS]: '/other' })],
    [
      'the refresh annotation',
      (raw: Raw) =>
        Object.assign(raw.metadata.annotations as object, { 'argocd.argoproj.io/refresh': 'hard' }),
    ],
    [
      'the source path',
      (raw: Raw) => Object.assign((raw.spec as { source: object }).source, { path: 'apps/other' }),
    ],
    ['the name', (raw: Raw) => Object.assign(raw.metadata, { name: 'renamed' })],
  ])('parses it again when %s changed too', (_, change) => {
    const cache = createMatchIndexCache();
    const first = listed('web', 'u1', '10');
    cache.indexFor('hub', [first]);
    const next = withStatus(first, '11', {});
    change(next.raw as Raw);
    const index = cache.indexFor('hub', [next]);
    expect(cache.lastUpdate('hub')).toEqual({ parsed: 1, reused: 0, dropped: 0, statusOnly: 0 });
    expect(index.match(branchPush('main'), files('apps/other/x')).matches[0]?.object.raw).toBe(next.raw);
  });
});

type Raw = { metadata: Record<string, unknown>; spec: unknown };
