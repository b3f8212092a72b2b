import type { FleetObject, PushToMatch } from '../lib/matching/match-index.js';
import type { ChangedFiles } from '../lib/webhook/push-event.js';

/**
 * Issue 11's matching corpus: 10,000 Applications over 200 repositories, one of them a monorepo with 2,000
 * path-filtered apps (`teams/team-<t>/svc-<s>`, 100 teams × 20 services). The other 199 repositories hold
 * ~40 apps each, half path-filtered. All on one hub cluster: the worst case for one invocation.
 */
export const MONOREPO = 'https://github.com/org/monorepo';
const TEAMS = 100;
const SERVICES = 20;
const PATHS = 'argocd.argoproj.io/manifest-generate-paths';

/** mulberry32, seeded, so every run (and every implementation compared) sees the same corpus. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function app(n: number, repoURL: string, path: string, revision: string, paths: string | undefined) {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: {
      name: `app-${n}`,
      namespace: 'argocd',
      uid: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
      resourceVersion: String(1000 + n),
      annotations: paths === undefined ? {} : { [PATHS]: paths },
    },
    spec: {
      project: 'default',
      source: { repoURL, path, targetRevision: revision },
      destination: { name: 'in-cluster', namespace: `ns-${n % 500}` },
      syncPolicy: { automated: { prune: true } },
    },
  };
}

// 80% plain `.`, 15% also a shared base from the repo root, 5% also a glob over every chart's values.
function monorepoPaths(n: number): string {
  if (n % 20 === 0) return '.;/charts/*/values.yaml';
  if (n % 20 < 4) return '.;/shared/base';
  return '.';
}

export function matchingCorpus(): FleetObject[] {
  const objects: FleetObject[] = [];
  let n = 0;
  for (let t = 0; t < TEAMS; t++) {
    for (let s = 0; s < SERVICES; s++, n++) {
      const path = `teams/team-${t}/svc-${s}`;
      const raw = app(n, `${MONOREPO}.git`, path, n % 10 === 0 ? 'HEAD' : 'main', monorepoPaths(n));
      objects.push({ cluster: 'hub', kind: 'Application', raw });
    }
  }
  for (let i = 0; n < 10_000; i++, n++) {
    const repo = 1 + (i % 199);
    const url = i % 3 === 0 ? `git@github.com:org/repo-${repo}.git` : `https://github.com/org/repo-${repo}`;
    const raw = app(n, url, `apps/svc-${i % 40}`, 'main', i % 2 === 0 ? '.' : undefined);
    objects.push({ cluster: 'hub', kind: 'Application', raw });
  }
  return objects;
}

export const monorepoPush: PushToMatch = {
  repo: { webUrl: MONOREPO, urls: [`${MONOREPO}.git`, 'git@github.com:org/monorepo.git'] },
  refType: 'branch',
  refName: 'main',
  touchedDefaultBranch: true,
};

const KINDS = ['deployment.yaml', 'service.yaml', 'kustomization.yaml', 'values.yaml', 'config/app.yaml'];

/** A push of `count` files spread over the monorepo's services, now and then a shared base or chart. */
export function changedFiles(random: () => number, count: number): ChangedFiles {
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const roll = random();
    const t = Math.floor(random() * TEAMS);
    const s = Math.floor(random() * SERVICES);
    const kind = KINDS[Math.floor(random() * KINDS.length)] ?? 'deployment.yaml';
    if (count > 1 && roll < 0.01) files.push(`shared/base/file-${i}.yaml`);
    else if (count > 1 && roll < 0.02) files.push(`charts/chart-${s}/values.yaml`);
    else files.push(`teams/team-${t}/svc-${s}/${i}-${kind}`);
  }
  return { known: true, files };
}

/** The listing after `share` of the objects changed (a new `resourceVersion`, here a new path filter). */
export function withChanges(
  objects: readonly FleetObject[],
  random: () => number,
  share: number,
  round: number,
) {
  return objects.map((object) => {
    if (random() >= share) return object;
    const raw = structuredClone(object.raw) as ReturnType<typeof app>;
    raw.metadata.resourceVersion = `${raw.metadata.resourceVersion}-${round}`;
    raw.metadata.annotations = { [PATHS]: `.;/shared/round-${round}` };
    return { ...object, raw };
  });
}

/** The listing after Argo CD wrote every object's status: each has a new `resourceVersion`, the same spec. */
export function withStatusWritten(objects: readonly FleetObject[], round: number) {
  return objects.map((object) => {
    const raw = structuredClone(object.raw) as ReturnType<typeof app>;
    raw.metadata.resourceVersion = `${raw.metadata.resourceVersion}-s${round}`;
    return { ...object, raw };
  });
}
