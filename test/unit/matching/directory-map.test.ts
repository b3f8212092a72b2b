import { describe, expect, it } from 'vitest';
import { createMatchIndexCache } from '../../../lib/matching/index-cache.js';
import { buildMatchIndex, type FleetObject } from '../../../lib/matching/match-index.js';
import { application, branchPush, files, gitSource, REPO } from './fleet-objects.js';
import { describe as describeDecision, referenceDecisions } from './reference-match.js';

const PATHS = 'argocd.argoproj.io/manifest-generate-paths';

const app = (name: string, path: string, paths?: string, revision = 'main'): FleetObject => ({
  cluster: 'hub',
  kind: 'Application',
  raw: application(
    name,
    { source: gitSource(REPO, path, revision) },
    paths === undefined ? {} : { [PATHS]: paths },
  ),
});

// A monorepo in small: siblings with a common prefix, the root, `..`, trailing slashes, `;` lists with
// absolute items, globs, a path equal to a file, and apps without a filter or on another revision.
const fleet: FleetObject[] = [
  app('svc-1', 'apps/svc-1', '.'),
  app('svc-10', 'apps/svc-10', '.'),
  app('svc-1-slash', 'apps/svc-1/', './'),
  app('root', '.', '.'),
  app('root-slash', '', '/'),
  app('parent', 'apps/svc-1/deep', '..'),
  app('up-and-over', 'apps/svc-10', '../svc-1'),
  app('above-root', 'apps', '../../..'),
  app('shared', 'apps/web', '.;/shared/base; /charts/*/values.yaml ;;'),
  app('file-item', 'apps/svc-2', '/config/app.yaml'),
  app('glob-only', 'apps/svc-3', '/apps/svc-[0-9]/*.yaml'),
  app('double-star', 'apps/svc-4', '/apps/**/kustomization.yaml'),
  app('absolute-dotted', 'apps/svc-5', '/a/../b/./c//'),
  app('unfiltered', 'apps/svc-6'),
  app('empty-annotation', 'apps/svc-7', ' ; '),
  app('on-dev', 'apps/svc-1', '.', 'dev'),
  app('head', 'apps/svc-1', '.', 'HEAD'),
];

// Enough one-source apps that a small push's paths are fewer than the repository's literal items (the map
// is asked), and a push with enough files that its paths are more (every app is asked): both must agree.
const filler = Array.from({ length: 40 }, (_, n) => app(`filler-${n}`, `filler/app-${n}`, '.'));
const padding = Array.from({ length: 200 }, (_, n) => `padding/file-${n}.yaml`);

const decided = (objects: FleetObject[], changed: string[]) =>
  buildMatchIndex(objects)
    .match(branchPush('main'), files(...changed))
    .matches.map((m) => describeDecision(m.target.cluster, m.target.kind, m.target, m))
    .sort();

const refreshed = (objects: FleetObject[], changed: string[]) =>
  buildMatchIndex(objects)
    .match(branchPush('main'), files(...changed))
    .matches.filter((m) => m.decision === 'refreshed')
    .map((m) => m.target.name)
    .filter((name) => !name.startsWith('filler-'))
    .sort();

describe('the directory map of a repository', () => {
  it.each([
    ['a file under one service refreshes it, not its sibling with a longer name', ['apps/svc-1/a.yaml']],
    ['a file under the longer sibling refreshes only that one', ['apps/svc-10/a.yaml']],
    ['a file equal to an app path', ['apps/svc-1']],
    ['a file named like an app path with a trailing slash', ['apps/svc-1/']],
    ['a file under a shared base named by an absolute item', ['shared/base/x.yaml']],
    ['a file a glob item matches', ['charts/web/values.yaml']],
    ['a file a class glob matches', ['apps/svc-7/x.yaml']],
    ['a file a doubled-star glob matches deep down', ['apps/a/b/c/kustomization.yaml']],
    ['a file equal to a file item', ['config/app.yaml']],
    ['a file under an absolute item with dots and doubled slashes', ['b/c/d.yaml']],
    ['a top-level file (only root items cover it)', ['README.md']],
    ['a path with dots and doubled slashes', ['./apps//svc-1/../svc-10/x.yaml']],
    ['a path climbing above the root', ['../../apps/svc-1/x.yaml']],
    ['only the root, which names no file', ['/', '.', '']],
    ['no files at all', []],
    ['files under several services', ['apps/svc-1/x', 'apps/svc-10/y', 'filler/app-3/z']],
  ])('%s decides as the straightforward matching', (_, changed) => {
    const objects = [...fleet, ...filler];
    for (const push of [changed, [...changed, ...padding]]) {
      expect(decided(objects, push)).toEqual(referenceDecisions(objects, branchPush('main'), files(...push)));
    }
  });

  // Root items (`.` at the root, `/`, `..` above the root) and apps without a filter cover every file.
  const everyFile = ['above-root', 'empty-annotation', 'root', 'root-slash', 'unfiltered'];
  it.each([
    [['apps/svc-1/a.yaml'], ['glob-only', 'head', 'parent', 'svc-1', 'svc-1-slash', 'up-and-over']],
    [['apps/svc-10/a.yaml'], ['svc-10']],
    [['apps/svc-1'], ['head', 'parent', 'svc-1', 'svc-1-slash', 'up-and-over']],
    [['apps/svc-1/deep/x'], ['head', 'parent', 'svc-1', 'svc-1-slash', 'up-and-over']],
    [['charts/web/values.yaml'], ['shared']],
    [['apps/svc-7/x.yaml'], ['glob-only']],
    [['config/app.yaml'], ['file-item']],
    [['config/app.yaml/x'], ['file-item']],
    [['config/app.yml'], []],
    [['b/c/d.yaml'], ['absolute-dotted']],
    [['apps/a/b/c/kustomization.yaml'], ['double-star']],
  ])('%j refreshes the apps covering every file and %j', (changed, expected) => {
    const want = [...everyFile, ...expected].sort();
    expect(refreshed([...fleet, ...filler], changed)).toEqual(want);
    expect(refreshed([...fleet, ...filler], [...changed, ...padding])).toEqual(want);
  });

  it('answers from the apps as relisted: a moved app is found under its new path, a removed one nowhere', () => {
    const cache = createMatchIndexCache();
    const withIds = (objects: FleetObject[], version: string) =>
      objects.map((o) => {
        const raw = structuredClone(o.raw) as { metadata: Record<string, unknown> };
        raw.metadata.uid = `uid-${String(raw.metadata.name)}`;
        raw.metadata.resourceVersion = version;
        return { ...o, raw };
      });
    const first = withIds([...fleet, ...filler], '1');
    const push = (file: string) =>
      cache
        .indexFor('hub', current)
        .match(branchPush('main'), files(file))
        .matches.filter((m) => m.decision === 'refreshed')
        .map((m) => m.target.name)
        .filter((name) => !everyFile.includes(name) && !name.startsWith('filler-'))
        .sort();
    let current = first;
    expect(push('apps/svc-10/x')).toEqual(['svc-10']);
    // svc-10 moves to apps/svc-100; svc-1 is deleted; a new app takes apps/svc-10.
    current = [
      ...first.filter((o) => !['svc-1', 'svc-10'].includes(nameOf(o))),
      ...withIds([app('svc-10', 'apps/svc-100', '.')], '2'),
      ...withIds([app('newcomer', 'apps/svc-10', '.')], '1'),
    ];
    expect(push('apps/svc-10/x')).toEqual(['newcomer']);
    expect(push('apps/svc-100/x')).toEqual(['svc-10']);
    expect(push('apps/svc-1/x')).toEqual(['head', 'parent', 'svc-1-slash', 'up-and-over']);
  });
});

const nameOf = (o: FleetObject) => String((o.raw as { metadata: { name: string } }).metadata.name);
