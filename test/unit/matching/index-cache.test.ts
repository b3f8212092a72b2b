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
    expect(cache.lastUpdate('hub')).toEqual({ parsed: 3, reused: 0, dropped: 0 });

    // api moved to another path (a new resourceVersion), db was deleted, cache was created.
    const second = [
      listed('web', 'u1', '10'),
      listed('api', 'u2', '15', 'apps/web'),
      listed('cache', 'u4', '16'),
    ];
    expect(refreshed(cache, second, 'apps/web/x').sort()).toEqual(['api', 'web']);
    expect(cache.lastUpdate('hub')).toEqual({ parsed: 2, reused: 1, dropped: 1 });
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
    expect(cache.lastUpdate('hub')).toEqual({ parsed: 1, reused: 0, dropped: 0 });
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
    expect(cache.lastUpdate('hub')).toEqual({ parsed: 2, reused: 1, dropped: 0 });
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
