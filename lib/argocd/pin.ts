/**
 * `control: pin` (SPEC "Release control"): for a pinned repository's sources the orchestrator owns
 * `targetRevision`, a full 40-hex SHA Argo CD uses as it is, and records the revision each source follows
 * (as written before the pin) in the annotation `gitops-sync.io/follows`: a plain string for a
 * single-source app, a JSON object from source index to revision for a multi-source one. Pure: patches are
 * computed here and applied by the caller through the cluster API (JSON merge patches).
 */
import { canonicalRepoKey } from '../matching/repo-url.js';

export const FOLLOWS_ANNOTATION = 'gitops-sync.io/follows';
export const PIN_REVERTED_RULE = 'pin-reverted-by-owner';

const FULL_SHA = /^[0-9a-f]{40}$/i;
type Json = Record<string, unknown>;

/** One Git source of an Application as the pin sees it: its index (0 for `spec.source`) and fields. */
export interface RawSource {
  readonly index: number;
  readonly repoURL: string;
  readonly targetRevision: string;
}

export function rawOf(app: unknown): { spec: Json; annotations: Record<string, unknown>; multi: boolean } {
  const object = (typeof app === 'object' && app !== null ? app : {}) as Json;
  const spec = (typeof object.spec === 'object' && object.spec !== null ? object.spec : {}) as Json;
  const meta = (
    typeof object.metadata === 'object' && object.metadata !== null ? object.metadata : {}
  ) as Json;
  const annotations = (
    typeof meta.annotations === 'object' && meta.annotations !== null ? meta.annotations : {}
  ) as Record<string, unknown>;
  return { spec, annotations, multi: Array.isArray(spec.sources) && spec.sources.length > 0 };
}

function sourcesOf(app: unknown): RawSource[] {
  const { spec, multi } = rawOf(app);
  const list: unknown[] = multi ? (spec.sources as unknown[]) : [spec.source];
  return list.flatMap((item, index) => {
    const source = (typeof item === 'object' && item !== null ? item : {}) as Json;
    if (typeof source.repoURL !== 'string') return [];
    const targetRevision = typeof source.targetRevision === 'string' ? source.targetRevision : 'HEAD';
    return [{ index, repoURL: source.repoURL, targetRevision }];
  });
}

/** The followed revisions the annotation records, by source index (empty: not pinned, or unreadable). */
export function followedRevisions(app: unknown): ReadonlyMap<number, string> {
  const { annotations, multi } = rawOf(app);
  const value = annotations[FOLLOWS_ANNOTATION];
  if (typeof value !== 'string') return new Map();
  if (!multi) return new Map([[0, value]]);
  try {
    const parsed = JSON.parse(value) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return new Map();
    return new Map(
      Object.entries(parsed).flatMap(([key, revision]) =>
        /^\d+$/.test(key) && typeof revision === 'string' ? [[Number(key), revision] as const] : [],
      ),
    );
  } catch {
    return new Map();
  }
}

/** The revision a source follows: the annotation's for a pinned source, else its own `targetRevision`. */
export function followedRevision(app: unknown, sourceIndex: number): string | undefined {
  const followed = followedRevisions(app).get(sourceIndex);
  if (followed !== undefined) return followed;
  return sourcesOf(app).find((s) => s.index === sourceIndex)?.targetRevision;
}

function annotationValue(multi: boolean, followed: ReadonlyMap<number, string>): string {
  if (!multi) return followed.get(0) ?? '';
  const entries = [...followed].sort(([a], [b]) => a - b).map(([i, r]) => [String(i), r]);
  return JSON.stringify(Object.fromEntries(entries));
}

/**
 * A merge patch setting the given sources' `targetRevision`, with `annotations` when given. A JSON merge
 * patch replaces arrays whole, so a multi-source app gets every source (only the pinned ones changed) and
 * the `metadata.resourceVersion` the array was read at: the API server refuses the patch (409) when the
 * app changed since, instead of writing back a stale copy over another source's edit. The caller reads
 * the app again and builds the patch anew (`FleetCluster.patch`'s `rebuild`).
 */
function revisionsPatch(
  app: unknown,
  revisions: ReadonlyMap<number, string>,
  annotations?: Record<string, string | null>,
): Json {
  const { spec, multi } = rawOf(app);
  const metadata: Json = annotations === undefined ? {} : { annotations };
  if (!multi) {
    return {
      ...(annotations === undefined ? {} : { metadata }),
      spec: { source: { targetRevision: revisions.get(0) } },
    };
  }
  const sources = (spec.sources as unknown[]).map((item, index) => {
    const revision = revisions.get(index);
    return revision === undefined ? item : { ...(item as Json), targetRevision: revision };
  });
  const readAt = resourceVersionOf(app);
  if (readAt !== undefined) metadata.resourceVersion = readAt;
  return { ...(Object.keys(metadata).length === 0 ? {} : { metadata }), spec: { sources } };
}

function resourceVersionOf(app: unknown): string | undefined {
  const object = (typeof app === 'object' && app !== null ? app : {}) as Json;
  const meta = (
    typeof object.metadata === 'object' && object.metadata !== null ? object.metadata : {}
  ) as Json;
  return typeof meta.resourceVersion === 'string' && meta.resourceVersion !== ''
    ? meta.resourceVersion
    : undefined;
}

/** The app's sources whose repository is one of `pinnedRepos` (repository URLs or canonical keys). */
export function pinnedSources(app: unknown, pinnedRepos: readonly string[]): RawSource[] {
  const keys = new Set(pinnedRepos.map((r) => canonicalRepoKey(r) ?? r));
  return sourcesOf(app).filter((s) => {
    const key = canonicalRepoKey(s.repoURL);
    return key !== undefined && keys.has(key);
  });
}

/**
 * The first pin: each source of a pinned repository not pinned yet gets `targetRevision` = the commit the
 * app is synced at (`status.sync.revision(s)`), so nothing changes in the cluster, and the annotation
 * records the revision it followed. Undefined when there is nothing to pin, or a synced commit is unknown.
 */
export function firstPinPatch(app: unknown, pinnedRepos: readonly string[]): Json | undefined {
  const { multi } = rawOf(app);
  const followed = new Map(followedRevisions(app));
  const synced = syncedRevisions(app);
  const revisions = new Map<number, string>();
  for (const source of pinnedSources(app, pinnedRepos)) {
    if (followed.has(source.index)) continue;
    const sha = synced[source.index];
    if (sha === undefined || !FULL_SHA.test(sha)) return undefined;
    followed.set(source.index, source.targetRevision);
    revisions.set(source.index, sha.toLowerCase());
  }
  if (revisions.size === 0) return undefined;
  return revisionsPatch(app, revisions, { [FOLLOWS_ANNOTATION]: annotationValue(multi, followed) });
}

/** Moves the pin of one source to a pushed commit (a 40-hex SHA); undefined if it is not a SHA. */
export function movePinPatch(app: unknown, sourceIndex: number, sha: string): Json | undefined {
  if (!FULL_SHA.test(sha)) return undefined;
  return revisionsPatch(app, new Map([[sourceIndex, sha.toLowerCase()]]));
}

/**
 * Releasing a pinned app to a pushed commit: the pushed repository's sources move to `sha`, any other pinned
 * source not pinned yet is pinned where it is synced, and the annotation records what each one follows.
 * Undefined when the app has no source of `repoKey` under the pin (then it is refreshed as usual).
 */
export function releasePinPatch(
  app: unknown,
  pinnedRepos: readonly string[],
  repoKey: string,
  sha: string,
): Json | undefined {
  if (!FULL_SHA.test(sha)) return undefined;
  const { multi } = rawOf(app);
  const followed = new Map(followedRevisions(app));
  const synced = syncedRevisions(app);
  const revisions = new Map<number, string>();
  for (const source of pinnedSources(app, pinnedRepos)) {
    if (!followed.has(source.index)) followed.set(source.index, source.targetRevision);
    if (canonicalRepoKey(source.repoURL) === repoKey) revisions.set(source.index, sha.toLowerCase());
    else if (!FULL_SHA.test(source.targetRevision)) {
      const at = synced[source.index];
      if (at !== undefined && FULL_SHA.test(at)) revisions.set(source.index, at.toLowerCase());
    }
  }
  if (![...revisions.values()].includes(sha.toLowerCase())) return undefined;
  return revisionsPatch(app, revisions, { [FOLLOWS_ANNOTATION]: annotationValue(multi, followed) });
}

/** `gitops-sync unpin`: every followed revision back in `targetRevision`, the annotation removed. */
export function unpinPatch(app: unknown): Json | undefined {
  const followed = followedRevisions(app);
  if (followed.size === 0) return undefined;
  return revisionsPatch(app, followed, { [FOLLOWS_ANNOTATION]: null });
}

function syncedRevisions(app: unknown): (string | undefined)[] {
  const object = (typeof app === 'object' && app !== null ? app : {}) as Json;
  const sync = ((object.status as Json | undefined)?.sync ?? {}) as Json;
  if (rawOf(app).multi)
    return Array.isArray(sync.revisions)
      ? sync.revisions.map((r) => (typeof r === 'string' ? r : undefined))
      : [];
  return [typeof sync.revision === 'string' ? sync.revision : undefined];
}

/**
 * The fleet repositories under `control: pin`. Read defensively: the fleet file's `control` field is
 * added by the fleet parser (`control: pin | advisory`, default advisory).
 */
export function pinnedRepositoryUrls(repositories: readonly { readonly url: string }[]): string[] {
  return repositories.filter((r) => (r as { control?: string }).control === 'pin').map((r) => r.url);
}
