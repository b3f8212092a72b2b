import type { FleetObject, PushToMatch } from '../../../lib/matching/match-index.js';
import type { ChangedFiles } from '../../../lib/webhook/push-event.js';
import { application, applicationSet, gitRepository } from './fleet-objects.js';

/** mulberry32: a small seeded generator, so a failing case can be replayed from its seed. */
export function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const some = <T>(items: readonly T[], max: number): T[] =>
    Array.from({ length: Math.floor(next() * (max + 1)) }, () => pick(items));
  return { next, pick, some, chance: (p: number) => next() < p };
}
type Random = ReturnType<typeof random>;

const REPOS = ['acme/gitops', 'acme/other', 'team/mono'];
const spellings = (repo: string) => [
  `https://github.com/${repo}`,
  `https://github.com/${repo}.git`,
  `git@github.com:${repo}.git`,
  `HTTPS://GITHUB.COM/${repo.toUpperCase()}/`,
  `ssh://git@github.com/${repo}`,
];
const REVISIONS = [
  'HEAD',
  '',
  'main',
  'dev',
  'release/1.0',
  'v1.*',
  '^1.0.0',
  '>=1.2 <2',
  'refs/heads/main',
  'refs/tags/v1.2.0',
  'abc1234',
  'v1.2.0',
];
const SEGMENTS = [
  'apps',
  'web',
  'api',
  'base',
  'shared',
  'a',
  'b',
  'a*b',
  'x.yaml',
  'values.yaml',
  'k.json',
  '..',
  '.',
];
const ITEMS = [
  '.',
  '..',
  '../shared',
  '/shared',
  '/apps/*/base',
  'apps/**/x.yaml',
  '**/values.yaml',
  '*.yaml',
  '{web,api}',
  '[ab]*',
  'a\\*b',
  'x[',
  '/',
  '',
  ' ',
  '/a/../b/x.yaml',
  '**',
  'apps/*',
];
const PUSH_REFS = ['main', 'dev', 'release/1.0', 'v1.2.0', 'v1.3.0-rc.1', 'v2.0.0', 'env/prod'];

const path = (r: Random, max: number) => r.some(SEGMENTS, max).join('/');
// Most apps follow the default branch: that is where path decisions happen.
const revision = (r: Random) => (r.chance(0.5) ? r.pick(['main', 'HEAD']) : r.pick(REVISIONS));

function annotations(r: Random): Record<string, string> {
  if (r.chance(0.25)) return {};
  const items = Array.from({ length: 1 + Math.floor(r.next() * 3) }, () =>
    r.chance(0.4) ? r.pick(ITEMS) : r.chance(0.5) ? `/${path(r, 3)}` : path(r, 2),
  );
  return { 'argocd.argoproj.io/manifest-generate-paths': items.join(r.pick([';', ' ; ', ';;'])) };
}

function source(r: Random): Record<string, unknown> {
  if (r.chance(0.08)) return { path: path(r, 2), targetRevision: 'main' }; // ignored: no repoURL
  if (r.chance(0.05))
    return { repoURL: 'https://charts.example.com/stable', chart: 'web', targetRevision: '1.0.0' };
  return { repoURL: r.pick(spellings(r.pick(REPOS))), targetRevision: revision(r), path: path(r, 3) };
}

function app(r: Random, name: string): Record<string, unknown> {
  const shape = r.next();
  if (shape < 0.5) return application(name, { source: source(r) }, annotations(r));
  if (shape < 0.85) {
    const sources = Array.from({ length: 1 + Math.floor(r.next() * 3) }, () => source(r));
    return application(name, { sources }, annotations(r));
  }
  const drySource = {
    repoURL: r.pick(spellings(r.pick(REPOS))),
    targetRevision: revision(r),
    path: path(r, 2),
  };
  const syncSource = { targetBranch: r.pick(PUSH_REFS), path: path(r, 2) };
  return application(name, { sourceHydrator: { drySource, syncSource } }, annotations(r));
}

function rules(r: Random) {
  return r.some([0, 1, 2], 3).map(() => ({
    path: (r.chance(0.5) ? r.pick(ITEMS) : path(r, 3)) || 'apps',
    ...(r.chance(0.3) ? { exclude: true } : {}),
  }));
}

function appSet(r: Random, name: string): Record<string, unknown> {
  const git = () => ({
    git: {
      repoURL: r.pick(spellings(r.pick(REPOS))),
      revision: revision(r),
      directories: rules(r),
      files: rules(r),
    },
  });
  return applicationSet(
    name,
    r.chance(0.5) ? [git()] : [{ matrix: { generators: [git(), { clusters: {} }] } }],
  );
}

export function randomObject(r: Random, cluster: string, n: number, version = 1): FleetObject {
  const kind = r.pick([
    'Application',
    'Application',
    'Application',
    'ApplicationSet',
    'GitRepository',
  ] as const);
  const raw =
    kind === 'Application'
      ? app(r, `app-${n}`)
      : kind === 'ApplicationSet'
        ? appSet(r, `set-${n}`)
        : gitRepository(
            `repo-${n}`,
            r.pick(spellings(r.pick(REPOS))),
            r.pick([{}, { branch: 'main' }, { tag: 'v1.2.0' }, { semver: '^1.0.0' }]),
          );
  const metadata = raw.metadata as Record<string, unknown>;
  metadata.uid = `uid-${cluster}-${n}`;
  metadata.resourceVersion = String(version);
  return { cluster, kind, raw };
}

export function randomPush(r: Random): { push: PushToMatch; changed: ChangedFiles } {
  const repo = r.pick(REPOS);
  const refName = r.chance(0.5) ? 'main' : r.pick(PUSH_REFS);
  const tag = refName.startsWith('v');
  const push: PushToMatch = {
    repo: {
      webUrl: `https://github.com/${repo}`,
      urls: [`https://github.com/${repo}.git`, `git@github.com:${repo}.git`],
    },
    refType: tag ? 'tag' : 'branch',
    refName,
    touchedDefaultBranch: !tag && refName === 'main',
  };
  if (r.chance(0.1)) return { push, changed: { known: false, reason: 'truncated' } };
  const files = r
    .some([0], 6)
    .map(() => (r.chance(0.2) ? r.pick(['', '/', './apps/web/x.yaml', '/shared//values.yaml']) : path(r, 4)));
  return { push, changed: { known: true, files } };
}
