import type { RepositoryConfig } from '../fleet/fleet-config.js';
import type { ResolvedRevision } from '../git/resolve-revision.js';
import type { BehindMarker } from './ports.js';
import type { TrackedApp, TrackedSource } from './tracked-app.js';

/** What a pass knows about the commit a source's `targetRevision` names now. */
export type SourceResolution =
  | {
      readonly kind: 'resolved';
      readonly repo: RepositoryConfig;
      /** Canonical repository key (`host/org/repo`). */
      readonly repoKey: string;
      readonly resolved: Extract<ResolvedRevision, { found: true }>;
      /** The remote's default branch as a full ref. */
      readonly head?: string;
    }
  /** The repository is not in the fleet file: never read. */
  | { readonly kind: 'unlisted' }
  /** A Helm or OCI source: not a Git revision. */
  | { readonly kind: 'not-git' }
  /** The repository could not be listed, or the revision names nothing there. */
  | { readonly kind: 'unknown'; readonly reason: string };

export interface BehindSource {
  readonly source: number;
  readonly repoKey: string;
  readonly repo: RepositoryConfig;
  readonly ref: string;
  readonly sha: string;
  readonly head?: string;
  /** The commit Argo CD last compared this source at. */
  readonly synced: string;
}

export interface BehindCheck {
  readonly behind: readonly BehindSource[];
  /** Sources this pass could not judge: their markers are kept, not dropped. */
  readonly unknown: ReadonlySet<number>;
}

/**
 * The sources whose last compared commit is not the one their ref points at now. Argo CD sets
 * `status.sync.revision` on every comparison, so behind means Argo CD has not looked since the push.
 * A commit-pinned source never moves; a source never compared is not behind anything yet.
 */
export function behindSources(
  app: TrackedApp,
  resolve: (source: TrackedSource) => SourceResolution,
): BehindCheck {
  const behind: BehindSource[] = [];
  const unknown = new Set<number>();
  for (const tracked of app.sources) {
    const resolution = resolve(tracked);
    if (resolution.kind === 'unknown') unknown.add(tracked.index);
    if (resolution.kind !== 'resolved') continue;
    const { resolved } = resolution;
    if (resolved.via === 'commit' || resolved.ref === undefined || tracked.synced === undefined) continue;
    if (tracked.synced.toLowerCase() === resolved.sha.toLowerCase()) continue;
    behind.push({
      source: tracked.index,
      repoKey: resolution.repoKey,
      repo: resolution.repo,
      ref: resolved.ref,
      sha: resolved.sha,
      ...(resolution.head === undefined ? {} : { head: resolution.head }),
      synced: tracked.synced,
    });
  }
  return { behind, unknown };
}

/** Markers after this pass: a source still behind the same commit keeps its time; unknown ones are kept. */
export function nextMarkers(
  previous: readonly BehindMarker[],
  check: BehindCheck,
  now: number,
): BehindMarker[] {
  const kept = previous.filter((m) => check.unknown.has(m.source));
  const next = check.behind.map(
    (b): BehindMarker => ({
      source: b.source,
      sha: b.sha,
      since: previous.find((m) => m.source === b.source && m.sha === b.sha)?.since ?? now,
    }),
  );
  return [...kept, ...next];
}

export interface BehindApp {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
  readonly synced: string;
  readonly since: number;
}

/** One commit of one ref that apps are behind: what a single synthesized push stands for. */
export interface MissedPush {
  /** `<repo-key>:<ref>:<sha>`: the delivery id's tail and the memory key. */
  readonly key: string;
  readonly repoKey: string;
  readonly repo: RepositoryConfig;
  readonly ref: string;
  readonly sha: string;
  readonly head?: string;
  readonly apps: readonly BehindApp[];
  /** When the first of its apps was seen behind it. */
  readonly since: number;
}

export function groupMissedPushes(
  entries: readonly { readonly app: BehindApp; readonly behind: BehindSource }[],
): MissedPush[] {
  const groups = new Map<string, { first: BehindSource; apps: Map<string, BehindApp>; since: number }>();
  for (const { app, behind } of entries) {
    const key = `${behind.repoKey}:${behind.ref}:${behind.sha}`;
    const appKey = `${app.cluster}/${app.namespace}/${app.name}`;
    const group = groups.get(key);
    if (group === undefined) {
      groups.set(key, { first: behind, apps: new Map([[appKey, app]]), since: app.since });
      continue;
    }
    if (!group.apps.has(appKey)) group.apps.set(appKey, app);
    group.since = Math.min(group.since, app.since);
  }
  return [...groups]
    .map(
      ([key, { first, apps, since }]): MissedPush => ({
        key,
        repoKey: first.repoKey,
        repo: first.repo,
        ref: first.ref,
        sha: first.sha,
        ...(first.head === undefined ? {} : { head: first.head }),
        apps: [...apps.values()],
        since,
      }),
    )
    .sort((a, b) => a.key.localeCompare(b.key));
}
