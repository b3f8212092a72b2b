import {
  optionalRecord,
  optionalString,
  type Parsed,
  parseObject,
  type RawRecord,
  readMeta,
  record,
} from '../matching/raw-object.js';
import {
  type ApplicationSource,
  followPinnedSources,
  type IgnoredSource,
  readSources,
} from './application-sources.js';

export type { ApplicationSource, IgnoredSource } from './application-sources.js';

export const REFRESH_ANNOTATION = 'argocd.argoproj.io/refresh';
export const MANIFEST_PATHS_ANNOTATION = 'argocd.argoproj.io/manifest-generate-paths';

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
      ...followPinnedSources(readSources(spec), raw),
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
