import { createHash } from 'node:crypto';
import { parseConstraints, satisfies } from '../../lib/matching/semver.js';
import { compareVersions, parseVersion, type SemVersion } from '../../lib/matching/semver-version.js';

/** One manifest of a repository: its digest, the tags pointing at it, and (for a chart) the chart version. */
export interface OciImage {
  readonly digest: string;
  readonly tags: readonly string[];
  readonly pushedAt: Date;
  /** A Helm chart's `version` (its tag, with `+` written `_` as Helm does). */
  readonly chartVersion?: string;
}

export interface OciPush {
  /** `host/path`, e.g. `123456789012.dkr.ecr.eu-west-1.amazonaws.com/charts/web`. */
  readonly repository: string;
  readonly tag: string;
  /** Default: a digest of the repository, tag and push count (a new manifest every push). */
  readonly digest?: string;
  /** Pushing a chart (`helm push`): its version; default the tag. */
  readonly chartVersion?: string;
  readonly pushedAt?: Date;
}

/** How a source's `targetRevision` resolves, or why nothing does (Argo CD's ComparisonError). */
export type OciResolution =
  | { readonly found: true; readonly revision: string; readonly digest: string; readonly tag?: string }
  | { readonly found: false; readonly reason: string };

/**
 * The simulator's container registry (ECR, GHCR, Harbor alike): repositories → manifests by digest → tags,
 * as `docker push` / `helm push` leave them. A tag names one manifest at a time: pushing it again moves it.
 * The simulated Argo CD resolves OCI and Helm OCI sources against it (`resolveSource`).
 */
export interface OciRegistry {
  push(push: OciPush): OciImage;
  /** A repository's images, newest push first (undefined: no such repository). The shape DescribeImages lists. */
  images(repository: string): OciImage[] | undefined;
  repositories(): string[];
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

export function createOciRegistry(pushes: readonly OciPush[] = []): OciRegistry {
  /** repository key → digest → image (tags kept mutable here, copied out). */
  const repos = new Map<string, Map<string, Stored>>();
  let count = 0;
  const registry: OciRegistry = {
    push(push) {
      count += 1;
      const key = repositoryKey(push.repository);
      const digest = (
        push.digest ?? `sha256:${createHash('sha256').update(`${key}:${push.tag}:${count}`).digest('hex')}`
      ).toLowerCase();
      if (!DIGEST.test(digest)) throw new Error(`not a sha256 digest: ${digest.slice(0, 80)}`);
      const manifests = repos.get(key) ?? new Map<string, Stored>();
      repos.set(key, manifests);
      for (const image of manifests.values()) image.tags = image.tags.filter((t) => t !== push.tag);
      const image: Stored = manifests.get(digest) ?? { tags: [], pushedAt: push.pushedAt ?? new Date() };
      image.tags.push(push.tag);
      image.pushedAt = push.pushedAt ?? new Date();
      if (push.chartVersion !== undefined) image.chartVersion = push.chartVersion;
      // Re-inserted so the map's order is the push order.
      manifests.delete(digest);
      manifests.set(digest, image);
      return copy(digest, image);
    },
    images(repository) {
      const manifests = repos.get(repositoryKey(repository));
      if (manifests === undefined) return undefined;
      return [...manifests].map(([digest, image]) => copy(digest, image)).reverse();
    },
    repositories: () => [...repos.keys()],
  };
  for (const push of pushes) registry.push(push);
  return registry;
}

interface Stored {
  tags: string[];
  pushedAt: Date;
  chartVersion?: string;
}

function copy(digest: string, image: Stored): OciImage {
  return {
    digest,
    tags: [...image.tags],
    pushedAt: new Date(image.pushedAt.getTime()),
    ...(image.chartVersion === undefined ? {} : { chartVersion: image.chartVersion }),
  };
}

/** `oci://Host/Path/` → `host/path`, as Argo CD normalizes OCI repository URLs. */
export function repositoryKey(url: string): string {
  return url
    .replace(/^oci:\/\//i, '')
    .replace(/\/+$/, '')
    .toLowerCase();
}

/**
 * Resolves a source's `targetRevision` the way Argo CD's repo-server does for registry sources. OCI
 * (`kind: 'oci'`, Argo CD 3.1+): an existing tag or digest, else the highest tag a semver constraint
 * accepts; the revision is the manifest digest. Helm OCI (`kind: 'helm'`): an existing version, else the
 * highest a constraint accepts; the revision is the chart version (a digest is not a Helm version).
 */
export function resolveSource(
  registry: OciRegistry,
  kind: 'oci' | 'helm',
  repository: string,
  targetRevision: string,
): OciResolution {
  const images = registry.images(repository);
  if (images === undefined)
    return { found: false, reason: `repository ${repositoryKey(repository)} not found` };
  const wanted = targetRevision.trim();
  if (DIGEST.test(wanted.toLowerCase())) {
    if (kind === 'helm') return { found: false, reason: `invalid revision '${wanted}': not a chart version` };
    const image = images.find((i) => i.digest === wanted.toLowerCase());
    return image === undefined
      ? { found: false, reason: `manifest ${wanted} not found` }
      : { found: true, revision: image.digest, digest: image.digest };
  }
  const tagged = images.find((i) => i.tags.includes(wanted));
  const tag = tagged === undefined ? highestMatching(images, wanted) : wanted;
  if (tag === undefined) {
    return parseConstraints(wanted) === undefined
      ? { found: false, reason: `tag ${wanted} not found` }
      : { found: false, reason: `no version found for constraint '${wanted}'` };
  }
  const image = images.find((i) => i.tags.includes(tag)) as OciImage;
  const revision = kind === 'oci' ? image.digest : (image.chartVersion ?? tag.replace('_', '+'));
  return { found: true, revision, digest: image.digest, tag };
}

/** The highest tag a semver constraint accepts; tags that are not versions never match. */
function highestMatching(images: readonly OciImage[], constraint: string): string | undefined {
  const constraints = parseConstraints(constraint);
  if (constraints === undefined) return undefined;
  let best: { tag: string; version: SemVersion } | undefined;
  for (const tag of images.flatMap((i) => i.tags)) {
    const version = parseVersion(tag.replace('_', '+'));
    if (version === undefined || !satisfies(constraints, version)) continue;
    if (best === undefined || compareVersions(version, best.version) > 0) best = { tag, version };
  }
  return best?.tag;
}

type Resolve = (repoURL: string, targetRevision: string) => string | undefined | Promise<string | undefined>;

/** Which registry source a resolve URL names: `oci://…` (OCI), scheme-less `host/path` (Helm OCI), else Git. */
export function registryKindOf(url: string): 'oci' | 'helm' | undefined {
  if (/^oci:\/\//i.test(url)) return 'oci';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || /^[^/@]+@[^/:]+:/.test(url)) return undefined;
  return url.includes('/') ? 'helm' : undefined;
}

/**
 * A `resolveRevision` that answers registry sources from `registry` (the digest for OCI, the chart version
 * for Helm OCI; nothing when unresolved: Argo CD's ComparisonError) and hands every Git URL to `git`.
 */
export function withOciRegistry(registry: OciRegistry, git: Resolve): Resolve {
  return (repoURL, targetRevision) => {
    const kind = registryKindOf(repoURL);
    // A scheme-less URL the registry does not hold is left to `git`, as before the registry existed.
    if (kind === undefined || (kind === 'helm' && registry.images(repoURL) === undefined))
      return git(repoURL, targetRevision);
    const resolved = resolveSource(registry, kind, repoURL, targetRevision);
    return resolved.found ? resolved.revision : undefined;
  };
}
