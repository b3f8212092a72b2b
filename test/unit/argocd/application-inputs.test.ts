import { describe, expect, it } from 'vitest';
import {
  MANIFEST_PATHS_ANNOTATION,
  parseApplication,
  REFRESH_ANNOTATION,
} from '../../../lib/argocd/application.js';
import { sameParseInput } from '../../../lib/argocd/application-inputs.js';
import { FOLLOWS_ANNOTATION } from '../../../lib/argocd/pin.js';

type Json = Record<string, unknown>;
type Path = readonly (string | number)[];

const SHA = 'c'.repeat(40);
const status = {
  sync: { status: 'Synced', revision: SHA, revisions: [SHA, SHA] },
  health: { status: 'Healthy' },
  reconciledAt: '2026-12-03T05:00:00Z',
  resources: [{ kind: 'Deployment', name: 'web', status: 'Synced' }],
};

function app(metadata: Json, spec: Json): Json {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: {
      name: 'web',
      namespace: 'argocd',
      uid: 'u-1',
      resourceVersion: '7',
      labels: { team: 'a' },
      ...metadata,
    },
    spec: {
      project: 'payments',
      destination: { server: 'https://kubernetes.default.svc', namespace: 'web' },
      ...spec,
    },
    status,
  };
}

/** The shapes the parser knows: one source, several with a `$values` ref, the hydrator, pinned ones. */
const BASES: Record<string, Json> = {
  single: app(
    { annotations: { [MANIFEST_PATHS_ANNOTATION]: '.;../shared', [REFRESH_ANNOTATION]: 'normal' } },
    {
      source: {
        repoURL: 'https://github.com/acme/apps.git',
        path: 'web',
        targetRevision: 'main',
        helm: { valueFiles: ['v.yaml'] },
      },
      syncPolicy: { automated: { prune: true, selfHeal: true } },
    },
  ),
  multi: app(
    {},
    {
      sources: [
        {
          repoURL: 'https://charts.example.com',
          chart: 'web',
          targetRevision: '1.2.3',
          helm: { valueFiles: ['$values/web.yaml'] },
        },
        { repoURL: 'https://github.com/acme/values.git', targetRevision: 'main', ref: 'values' },
        { repoURL: 'oci://ghcr.io/acme/charts', chart: 'cache', targetRevision: '0.4.0' },
      ],
      syncPolicy: { automated: { enabled: false } },
    },
  ),
  hydrator: app(
    {},
    {
      sourceHydrator: {
        drySource: { repoURL: 'https://github.com/acme/dry.git', path: 'web', targetRevision: 'main' },
        syncSource: { targetBranch: 'env/prod', path: 'web' },
      },
    },
  ),
  pinnedSingle: app(
    { annotations: { [FOLLOWS_ANNOTATION]: 'main' } },
    { source: { repoURL: 'https://github.com/acme/apps.git', path: 'web', targetRevision: SHA } },
  ),
  pinnedMulti: app(
    { annotations: { [FOLLOWS_ANNOTATION]: '{"1":"main"}' } },
    {
      sources: [
        { repoURL: 'https://github.com/acme/apps.git', path: 'web', targetRevision: 'main' },
        { repoURL: 'https://github.com/acme/values.git', targetRevision: SHA, ref: 'values' },
      ],
    },
  ),
};

/** Every property path the parser reads, recorded through a proxy (array indexes kept). */
function pathsRead(raw: Json): Path[] {
  const read = new Map<string, Path>();
  const wrap = (value: unknown, at: Path): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    return new Proxy(value as object, {
      get(target, key, receiver) {
        const got = Reflect.get(target, key, receiver);
        if (typeof key !== 'string' || (Array.isArray(target) && !/^\d+$/.test(key))) return got;
        const path = [...at, Array.isArray(target) ? Number(key) : key];
        read.set(JSON.stringify(path), path);
        return wrap(got, path);
      },
    });
  };
  expect(parseApplication(wrap(raw, [])).ok).toBe(true);
  return [...read.values()];
}

/** Every path of the object itself, leaves and records alike. */
function pathsIn(value: unknown, at: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return [at];
  const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return [at, ...keys.flatMap((key) => pathsIn((value as Json)[key as string], [...at, key]))];
}

function withValue(raw: Json, path: Path, value: unknown): Json {
  const copy = structuredClone(raw);
  let node = copy as Json;
  for (const key of path.slice(0, -1)) {
    const next = node[key as string];
    if (typeof next !== 'object' || next === null) node[key as string] = typeof key === 'number' ? [] : {};
    node = node[key as string] as Json;
  }
  const last = path[path.length - 1] as string;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

const REPLACEMENTS: readonly unknown[] = [
  undefined,
  null,
  'https://github.com/acme/other.git',
  'main',
  'HEAD',
  'd'.repeat(40),
  '',
  7,
  false,
  true,
  {},
  [],
  [{ repoURL: 'https://github.com/acme/apps.git', path: 'x' }],
];

describe('sameParseInput', () => {
  for (const [shape, base] of Object.entries(BASES)) {
    it(`never calls two ${shape} listings the same when the parser reads them differently`, () => {
      const before = parseApplication(base);
      const paths = [...pathsRead(base), ...pathsIn(base).filter((p) => p.length > 0)];
      let mutations = 0;
      for (const path of paths) {
        for (const value of REPLACEMENTS) {
          const after = withValue(base, path, value);
          mutations++;
          if (sameParseInput(base, after)) {
            expect(
              parseApplication(after),
              `${shape} ${JSON.stringify(path)} = ${JSON.stringify(value)}`,
            ).toEqual(before);
          }
        }
      }
      expect(mutations).toBeGreaterThan(200);
    });

    it(`sees a change to each field the parser reads of a ${shape} listing`, () => {
      const before = parseApplication(base);
      for (const path of pathsRead(base)) {
        for (const value of REPLACEMENTS) {
          const after = withValue(base, path, value);
          if (JSON.stringify(parseApplication(after)) !== JSON.stringify(before)) {
            expect(sameParseInput(base, after), `${shape} ${JSON.stringify(path)}`).toBe(false);
          }
        }
      }
    });

    it(`calls a ${shape} listing whose status, labels and resourceVersion changed the same`, () => {
      const after = structuredClone(base);
      after.status = { ...status, reconciledAt: '2026-12-03T05:03:00Z', health: { status: 'Progressing' } };
      (after.metadata as Json).resourceVersion = '8';
      (after.metadata as Json).labels = { team: 'b' };
      (after.metadata as Json).managedFields = [{ manager: 'argocd-controller' }];
      expect(sameParseInput(base, after)).toBe(true);
    });
  }

  it('calls a change inside a source the parser skips (helm values) the same', () => {
    const after = withValue(BASES.single as Json, ['spec', 'source', 'helm', 'valueFiles'], ['other.yaml']);
    expect(sameParseInput(BASES.single, after)).toBe(true);
  });

  it('tells a record turned into something else apart', () => {
    const base = BASES.multi as Json;
    expect(sameParseInput(base, withValue(base, ['spec', 'syncPolicy'], 'auto'))).toBe(false);
    expect(sameParseInput(base, withValue(base, ['metadata', 'annotations'], []))).toBe(false);
    expect(sameParseInput(base, withValue(base, ['spec'], null))).toBe(false);
    expect(sameParseInput(base, 'not an object')).toBe(false);
  });
});
