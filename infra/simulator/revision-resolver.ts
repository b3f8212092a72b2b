import type { ResolveRevision } from './argocd-controller.js';

export interface RepoRefs {
  readonly defaultBranch: string;
  readonly branches: Readonly<Record<string, string>>;
  readonly tags?: Readonly<Record<string, string>>;
}

/**
 * A `resolveRevision` over fixed refs per repository URL (tests, benchmarks): `HEAD`/empty, branch and tag
 * names (optionally `refs/heads/`/`refs/tags/`-qualified), full SHAs, and the simple semver constraints
 * the default fleet uses (`1.2.3`, `~1.2`, `^1.2.0`, `1.x`, `*`) over `v`-prefixed or bare tags.
 */
export function createMapResolver(repos: Readonly<Record<string, RepoRefs>>): ResolveRevision {
  const normalized = new Map(Object.entries(repos).map(([url, refs]) => [normalizeUrl(url), refs]));
  return (repoURL, targetRevision) => {
    const refs = normalized.get(normalizeUrl(repoURL));
    if (refs === undefined) return undefined;
    const revision = targetRevision.trim();
    if (revision === '' || revision === 'HEAD' || revision === 'origin/HEAD')
      return refs.branches[refs.defaultBranch];
    if (/^[0-9a-f]{40}$/.test(revision)) return revision;
    if (revision.startsWith('refs/heads/')) return refs.branches[revision.slice(11)];
    if (revision.startsWith('refs/tags/')) return refs.tags?.[revision.slice(10)];
    return refs.branches[revision] ?? refs.tags?.[revision] ?? semverMatch(refs.tags ?? {}, revision);
  };
}

function normalizeUrl(url: string): string {
  return url
    .toLowerCase()
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
}

type Version = readonly [number, number, number];

function parse(text: string): Version | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(text);
  return match === null ? undefined : [Number(match[1]), Number(match[2]), Number(match[3])];
}

function semverMatch(tags: Readonly<Record<string, string>>, constraint: string): string | undefined {
  const accepts = constraintOf(constraint);
  if (accepts === undefined) return undefined;
  let best: { version: Version; sha: string } | undefined;
  for (const [tag, sha] of Object.entries(tags)) {
    const version = parse(tag);
    if (version === undefined || !accepts(version)) continue;
    if (best === undefined || compare(version, best.version) > 0) best = { version, sha };
  }
  return best?.sha;
}

function constraintOf(constraint: string): ((v: Version) => boolean) | undefined {
  if (constraint === '*') return () => true;
  const wildcard = /^v?(\d+)\.(x|\*)$/.exec(constraint);
  if (wildcard !== null) return (v) => v[0] === Number(wildcard[1]);
  const ranged = /^([~^])v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(constraint);
  if (ranged === null) return undefined;
  const floor: Version = [Number(ranged[2]), Number(ranged[3] ?? 0), Number(ranged[4] ?? 0)];
  // ~1.2 allows 1.2.x; ^1.2.0 allows 1.x.x (^0.y.z allows 0.y.x).
  const ceiling: Version =
    ranged[1] === '~' || floor[0] === 0 ? [floor[0], floor[1] + 1, 0] : [floor[0] + 1, 0, 0];
  return (v) => compare(v, floor) >= 0 && compare(v, ceiling) < 0;
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}
