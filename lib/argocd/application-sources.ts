import { ociSourceKey } from '../matching/oci-source.js';
import {
  fail,
  optionalList,
  optionalRecord,
  optionalString,
  type RawRecord,
  record,
  requiredString,
} from '../matching/raw-object.js';
import { canonicalRepoKey } from '../matching/repo-url.js';
import { followedRevisions } from './pin.js';

/** One source of an Application as the webhook sees it (Argo CD's `GetSources` plus the hydrator dry source). */
export interface ApplicationSource {
  readonly repoURL: string;
  /** `canonicalRepoKey(repoURL)`; undefined for sources that are not Git (`oci://`, some Helm repositories). */
  readonly repoKey: string | undefined;
  /** `ociSourceKey(repoURL, chart)`: the image repository of an OCI or Helm OCI source (registry pushes). */
  readonly imageKey?: string;
  readonly targetRevision: string;
  readonly path: string;
  readonly chart?: string;
  readonly ref?: string;
  /** Hydrator sources: `sync` uses its own `path` as its only refresh path; a `dry` match also asks to hydrate. */
  readonly hydrator?: 'dry' | 'sync';
  /** Index in `spec.sources` (multi-source apps), which `status.sync.revisions` follows. */
  readonly position?: number;
  /**
   * `control: pin`: the commit the orchestrator pinned `spec…targetRevision` to; `targetRevision` above is
   * then the revision the source follows (annotation `gitops-sync.io/follows`).
   */
  readonly pinnedAt?: string;
}

/** A `spec.sources[]` entry that is well-typed but unusable (no `repoURL`, not a Git URL): left out. */
export interface IgnoredSource {
  readonly position: number;
  /** What is wrong with it, e.g. `repoURL is missing`. */
  readonly reason: string;
}

/** A type error (`repoURL: 7`) makes the object unreadable, as Argo CD's typed decoding would; see below. */
function readSource(
  raw: RawRecord,
  where: string,
  extra: Partial<ApplicationSource> = {},
): ApplicationSource | { readonly ignored: string } {
  const repoURL = optionalString(raw.repoURL, `${where}.repoURL`) ?? '';
  const chart = optionalString(raw.chart, `${where}.chart`);
  const ref = optionalString(raw.ref, `${where}.ref`);
  const targetRevision = optionalString(raw.targetRevision, `${where}.targetRevision`) ?? '';
  const path = optionalString(raw.path, `${where}.path`) ?? '';
  if (repoURL.trim() === '') return { ignored: 'repoURL is missing' };
  const repoKey = canonicalRepoKey(repoURL);
  // OCI and Helm chart repositories are fine sources, just not Git ones; never echo the URL (credentials).
  if (repoKey === undefined && chart === undefined && !/^\s*oci:\/\//i.test(repoURL)) {
    return { ignored: 'repoURL is not a Git repository URL' };
  }
  const imageKey = ociSourceKey(repoURL, chart);
  return {
    repoURL,
    repoKey,
    ...(imageKey === undefined ? {} : { imageKey }),
    targetRevision,
    path,
    ...(chart === undefined ? {} : { chart }),
    ...(ref === undefined ? {} : { ref }),
    ...extra,
  };
}

function requiredSource(
  raw: RawRecord,
  where: string,
  extra?: Partial<ApplicationSource>,
): ApplicationSource {
  const source = readSource(raw, where, extra);
  if ('ignored' in source) fail(`${where}.${source.ignored}`);
  return source;
}

interface Sources {
  readonly sources: ApplicationSource[];
  readonly ignoredSources?: IgnoredSource[];
}

/**
 * Multi-source entries that are well-typed but unusable are left out and named, so the app is still
 * refreshed through its other sources, as Argo CD does; with none left the app is unreadable.
 */
function readSourceList(list: readonly unknown[]): Sources {
  const sources: ApplicationSource[] = [];
  const ignoredSources: IgnoredSource[] = [];
  list.forEach((item, position) => {
    const where = `spec.sources[${position}]`;
    const source = readSource(record(item, where), where, { position });
    if ('ignored' in source) ignoredSources.push({ position, reason: source.ignored });
    else sources.push(source);
  });
  if (sources.length === 0) {
    fail(ignoredSources.map((i) => `spec.sources[${i.position}].${i.reason}`).join('; '));
  }
  return ignoredSources.length === 0 ? { sources } : { sources, ignoredSources };
}

/** Argo CD's `GetSources`: the hydrator wins, then non-empty `sources[]`, then `source`. */
export function readSources(spec: RawRecord): Sources {
  const hydrator = optionalRecord(spec.sourceHydrator, 'spec.sourceHydrator');
  if (hydrator) {
    const dry = record(hydrator.drySource, 'spec.sourceHydrator.drySource');
    const sync = record(hydrator.syncSource, 'spec.sourceHydrator.syncSource');
    const drySource = requiredSource(dry, 'spec.sourceHydrator.drySource', { hydrator: 'dry' });
    const syncSource = requiredSource(
      {
        repoURL: optionalString(sync.repoURL, 'spec.sourceHydrator.syncSource.repoURL') || dry.repoURL,
        targetRevision: requiredString(sync.targetBranch, 'spec.sourceHydrator.syncSource.targetBranch'),
        path: sync.path,
      },
      'spec.sourceHydrator.syncSource',
      { hydrator: 'sync' },
    );
    return { sources: [syncSource, drySource] };
  }
  const list = optionalList(spec.sources, 'spec.sources');
  if (list && list.length > 0) return readSourceList(list);
  const single = optionalRecord(spec.source, 'spec.source');
  if (!single) fail('spec has no source');
  return { sources: [requiredSource(single, 'spec.source')] };
}

const PINNED_SHA = /^[0-9a-f]{40}$/i;

/**
 * `control: pin`: a source the orchestrator pinned (`targetRevision` a full SHA, the revision it follows in
 * `gitops-sync.io/follows`) is matched, caught up and audited by the revision it follows; the pin is kept
 * in `pinnedAt`. A source whose `targetRevision` is no longer a SHA (someone unpinned it) reads as written.
 */
export function followPinnedSources<T extends Sources>(read: T, raw: unknown): T {
  const followed = followedRevisions(raw);
  if (followed.size === 0) return read;
  const sources = read.sources.map((source) => {
    const revision = source.hydrator === undefined ? followed.get(source.position ?? 0) : undefined;
    if (revision === undefined || !PINNED_SHA.test(source.targetRevision)) return source;
    return { ...source, targetRevision: revision, pinnedAt: source.targetRevision.toLowerCase() };
  });
  return { ...read, sources };
}
