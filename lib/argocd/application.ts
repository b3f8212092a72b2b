import {
  fail,
  optionalList,
  optionalRecord,
  optionalString,
  type Parsed,
  parseObject,
  type RawRecord,
  readMeta,
  record,
  requiredString,
} from '../matching/raw-object.js';
import { canonicalRepoKey } from '../matching/repo-url.js';

export const REFRESH_ANNOTATION = 'argocd.argoproj.io/refresh';
export const MANIFEST_PATHS_ANNOTATION = 'argocd.argoproj.io/manifest-generate-paths';

/** One source of an Application as the webhook sees it (Argo CD's `GetSources` plus the hydrator dry source). */
export interface ApplicationSource {
  readonly repoURL: string;
  /** `canonicalRepoKey(repoURL)`; undefined for sources that are not Git (`oci://`, some Helm repositories). */
  readonly repoKey: string | undefined;
  readonly targetRevision: string;
  readonly path: string;
  readonly chart?: string;
  readonly ref?: string;
  /** Hydrator sources: `sync` uses its own `path` as its only refresh path; a `dry` match also asks to hydrate. */
  readonly hydrator?: 'dry' | 'sync';
  /** Index in `spec.sources` (multi-source apps), which `status.sync.revisions` follows. */
  readonly position?: number;
}

/** A `spec.sources[]` entry that is well-typed but unusable (no `repoURL`, not a Git URL): left out. */
export interface IgnoredSource {
  readonly position: number;
  /** What is wrong with it, e.g. `repoURL is missing`. */
  readonly reason: string;
}

export interface ApplicationDestination {
  readonly server?: string;
  readonly name?: string;
  readonly namespace?: string;
}

export interface Application {
  readonly namespace: string;
  readonly name: string;
  readonly sources: readonly ApplicationSource[];
  /** Multi-source entries left out; Argo CD skips them too (they match no push) and uses the others. */
  readonly ignoredSources?: readonly IgnoredSource[];
  readonly manifestGeneratePaths?: string;
  /** A refresh still pending on the object (`normal` or `hard`). */
  readonly refreshAnnotation?: string;
  readonly automated: boolean;
  readonly destination: ApplicationDestination;
  readonly project: string;
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
  return {
    repoURL,
    repoKey,
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
function readSources(spec: RawRecord): Sources {
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

function readAutomated(spec: RawRecord): boolean {
  const syncPolicy = optionalRecord(spec.syncPolicy, 'spec.syncPolicy');
  const automated = optionalRecord(syncPolicy?.automated, 'spec.syncPolicy.automated');
  // `automated.enabled: false` (Argo CD 3.x) keeps the block but turns automated sync off.
  return automated !== undefined && automated.enabled !== false;
}

/** An Argo CD Application from a cluster; never throws. */
export function parseApplication(raw: unknown): Parsed<Application> {
  return parseObject(() => {
    const meta = readMeta(raw);
    const spec = record(record(raw, 'object').spec, 'spec');
    const paths = optionalString(
      meta.annotations[MANIFEST_PATHS_ANNOTATION],
      `annotation ${MANIFEST_PATHS_ANNOTATION}`,
    );
    const refresh = optionalString(meta.annotations[REFRESH_ANNOTATION], `annotation ${REFRESH_ANNOTATION}`);
    const destination = optionalRecord(spec.destination, 'spec.destination') ?? {};
    const server = optionalString(destination.server, 'spec.destination.server');
    const destName = optionalString(destination.name, 'spec.destination.name');
    const destNamespace = optionalString(destination.namespace, 'spec.destination.namespace');
    return {
      namespace: meta.namespace,
      name: meta.name,
      ...readSources(spec),
      ...(paths === undefined ? {} : { manifestGeneratePaths: paths }),
      ...(refresh === undefined ? {} : { refreshAnnotation: refresh }),
      automated: readAutomated(spec),
      destination: {
        ...(server === undefined ? {} : { server }),
        ...(destName === undefined ? {} : { name: destName }),
        ...(destNamespace === undefined ? {} : { namespace: destNamespace }),
      },
      project: optionalString(spec.project, 'spec.project') || 'default',
    };
  });
}
