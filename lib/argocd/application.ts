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
  readonly manifestGeneratePaths?: string;
  /** A refresh still pending on the object (`normal` or `hard`). */
  readonly refreshAnnotation?: string;
  readonly automated: boolean;
  readonly destination: ApplicationDestination;
  readonly project: string;
}

function readSource(
  raw: RawRecord,
  where: string,
  extra: Partial<ApplicationSource> = {},
): ApplicationSource {
  const repoURL = requiredString(raw.repoURL, `${where}.repoURL`);
  const chart = optionalString(raw.chart, `${where}.chart`);
  const ref = optionalString(raw.ref, `${where}.ref`);
  const repoKey = canonicalRepoKey(repoURL);
  // OCI and Helm chart repositories are fine sources, just not Git ones; never echo the URL (credentials).
  if (repoKey === undefined && chart === undefined && !/^\s*oci:\/\//i.test(repoURL)) {
    fail(`${where}.repoURL is not a Git repository URL`);
  }
  return {
    repoURL,
    repoKey,
    targetRevision: optionalString(raw.targetRevision, `${where}.targetRevision`) ?? '',
    path: optionalString(raw.path, `${where}.path`) ?? '',
    ...(chart === undefined ? {} : { chart }),
    ...(ref === undefined ? {} : { ref }),
    ...extra,
  };
}

/** Argo CD's `GetSources`: the hydrator wins, then non-empty `sources[]`, then `source`. */
function readSources(spec: RawRecord): ApplicationSource[] {
  const hydrator = optionalRecord(spec.sourceHydrator, 'spec.sourceHydrator');
  if (hydrator) {
    const dry = record(hydrator.drySource, 'spec.sourceHydrator.drySource');
    const sync = record(hydrator.syncSource, 'spec.sourceHydrator.syncSource');
    const drySource = readSource(dry, 'spec.sourceHydrator.drySource', { hydrator: 'dry' });
    const syncSource = readSource(
      {
        repoURL: optionalString(sync.repoURL, 'spec.sourceHydrator.syncSource.repoURL') || dry.repoURL,
        targetRevision: requiredString(sync.targetBranch, 'spec.sourceHydrator.syncSource.targetBranch'),
        path: sync.path,
      },
      'spec.sourceHydrator.syncSource',
      { hydrator: 'sync' },
    );
    return [syncSource, drySource];
  }
  const list = optionalList(spec.sources, 'spec.sources');
  if (list && list.length > 0) {
    return list.map((item, i) => readSource(record(item, `spec.sources[${i}]`), `spec.sources[${i}]`));
  }
  const single = optionalRecord(spec.source, 'spec.source');
  if (!single) fail('spec has no source');
  return [readSource(single, 'spec.source')];
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
      sources: readSources(spec),
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
