import { tagVerdict } from '../matching/registry-decide.js';
import { compareVersions, parseVersion, type SemVersion } from '../matching/semver-version.js';
import { ecrRepositoryOf, type RepositoryImage } from '../registry/ecr-repository.js';
import { DIGEST, type RegistryImage } from '../registry/registry-event.js';
import type { RegistrySource } from './registry-sources.js';

/** What the ECR catch-up makes of one source against its repository's images. */
export type SourceJudgement =
  /** A tag the source follows points at another image than Argo CD compared it at. */
  | {
      readonly kind: 'behind';
      readonly tag: string;
      readonly digest: string;
      readonly pushedAt?: number;
      readonly why: string;
    }
  /** Synced at what its revision names now (or pinned to a digest, or never compared yet). */
  | { readonly kind: 'current'; readonly why: string }
  /** No tag of the repository follows its revision (with the reason: a tag that is not a version…). */
  | { readonly kind: 'miss'; readonly why: string };

export interface RegistryBehindApp {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
  readonly source: number;
  readonly synced: string;
}

/** One (repository, digest, tag) some apps are behind: what one registry push would have delivered. */
export interface RegistryCandidate {
  /** `host/path@digest:tag`. */
  readonly key: string;
  readonly image: RegistryImage;
  readonly apps: readonly RegistryBehindApp[];
  readonly pushedAt?: number;
  /** The first app's reason. */
  readonly why: string;
}

export interface RegistryMiss {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
  readonly repository: string;
  readonly reason: string;
}

export interface RegistryPlan {
  readonly candidates: readonly RegistryCandidate[];
  readonly misses: readonly RegistryMiss[];
}

const short = (digest: string) => digest.slice(0, 'sha256:'.length + 12);

/**
 * A source against its repository's images, by the matching a registry push gets (`tagVerdict`): the exact
 * tag, or the highest version tag a semver constraint accepts (a tag that is not a version never does).
 * An OCI source is behind when that tag's digest is not the one Argo CD reports; a Helm OCI source (which
 * reports its chart version) when the version differs and is not a later one already running. A source
 * pinned to a digest never moves; one never compared is not behind anything yet (as for Git).
 */
export function judgeSource(source: RegistrySource, images: readonly RepositoryImage[]): SourceJudgement {
  const target = source.targetRevision.trim();
  if (DIGEST.test(target.toLowerCase())) return { kind: 'current', why: 'pins a digest' };
  if (source.synced === undefined) return { kind: 'current', why: 'not compared yet' };
  let best: { image: RepositoryImage; tag: string; version: SemVersion | undefined } | undefined;
  let notVersion: string | undefined;
  for (const image of images) {
    for (const tag of image.tags) {
      const verdict = tagVerdict(target, { host: '', repository: '', tag, digest: image.digest });
      if (!verdict.follows) {
        if (notVersion === undefined && verdict.why.endsWith('is not a version')) notVersion = verdict.why;
        continue;
      }
      const version = parseVersion(tag);
      const better =
        best === undefined ||
        (version !== undefined && (best.version === undefined || compareVersions(version, best.version) > 0));
      if (better) best = { image, tag, version };
    }
  }
  if (best === undefined) {
    const named = target === '' ? 'latest' : target;
    return {
      kind: 'miss',
      why: `no tag follows '${named}'${notVersion === undefined ? '' : `: targetRevision ${notVersion}`}`,
    };
  }
  const { image, tag, version } = best;
  const synced = source.synced;
  const behind = (why: string): SourceJudgement => ({
    kind: 'behind',
    tag,
    digest: image.digest,
    ...(image.pushedAt === undefined ? {} : { pushedAt: image.pushedAt }),
    why,
  });
  if (source.helm) {
    if (synced === tag) return { kind: 'current', why: `synced at chart ${tag}` };
    const running = parseVersion(synced);
    if (running !== undefined && version !== undefined && compareVersions(running, version) > 0)
      return { kind: 'current', why: `runs chart ${synced}, later than tag ${tag}` };
    return behind(`tag ${tag} is newer than chart ${synced}`);
  }
  if (synced.toLowerCase() === image.digest) return { kind: 'current', why: `synced at tag ${tag}` };
  return behind(`tag ${tag} is ${short(image.digest)}, synced at ${short(synced)}`);
}

/**
 * Every source judged against its repository's images (`imagesOf`: undefined when the repository was
 * not described this pass, and its sources are left for the next), grouped into one candidate per
 * (repository, digest, tag): one push for however many apps are behind it.
 */
export function planRegistryCatchUp(
  sources: readonly RegistrySource[],
  imagesOf: (key: string) => readonly RepositoryImage[] | undefined,
): RegistryPlan {
  const groups = new Map<
    string,
    { candidate: Omit<RegistryCandidate, 'apps'>; apps: Map<string, RegistryBehindApp> }
  >();
  const misses: RegistryMiss[] = [];
  for (const source of sources) {
    const images = imagesOf(source.imageKey);
    const repository = ecrRepositoryOf(source.imageKey);
    if (images === undefined || repository === undefined) continue;
    const judged = judgeSource(source, images);
    const app = { cluster: source.cluster, namespace: source.namespace, name: source.name };
    if (judged.kind === 'miss') {
      misses.push({ ...app, repository: source.imageKey, reason: judged.why });
      continue;
    }
    if (judged.kind !== 'behind') continue;
    const key = `${source.imageKey}@${judged.digest}:${judged.tag}`;
    const group = groups.get(key) ?? {
      candidate: {
        key,
        image: {
          host: repository.host,
          repository: repository.repositoryName,
          tag: judged.tag,
          digest: judged.digest,
          account: repository.registryId,
          region: repository.region,
        },
        ...(judged.pushedAt === undefined ? {} : { pushedAt: judged.pushedAt }),
        why: judged.why,
      },
      apps: new Map(),
    };
    groups.set(key, group);
    const appKey = `${app.cluster}/${app.namespace}/${app.name}`;
    if (!group.apps.has(appKey))
      group.apps.set(appKey, { ...app, source: source.source, synced: source.synced ?? '' });
  }
  const candidates = [...groups.values()]
    .map(({ candidate, apps }): RegistryCandidate => ({ ...candidate, apps: [...apps.values()] }))
    .sort((a, b) => a.key.localeCompare(b.key));
  return { candidates, misses };
}
