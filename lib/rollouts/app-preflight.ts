import type { ManifestRenderer } from '../argocd-api/renderers.js';
import { destinationCluster } from '../fleet/destination.js';
import type { FleetConfig, RepositoryConfig } from '../fleet/fleet-config.js';
import type { GitCredentials } from '../git/credentials.js';
import type { GitReader } from '../git/manifests.js';
import { canonicalRepoKeys } from '../matching/repo-url.js';
import { preflightApp, secretPolicyFor } from '../secrets/preflight.js';
import type { ResolveDeps } from '../secrets/resolve.js';
import type { SecretCheck } from '../secrets/secret-check.js';
import type { Preflight, PreflightVerdict } from './fanout.js';
import { type AppManifestsAtPush, createPreflightManifests } from './preflight-manifests.js';

export interface AppPreflightDeps {
  readonly fleet: FleetConfig;
  readonly git: GitReader;
  readonly credentials: (repo: RepositoryConfig) => Promise<GitCredentials | undefined>;
  /** SecretStores and ClusterSecretStores on a fleet cluster (empty when it cannot be read). */
  readonly clusterStores: (cluster: string) => Promise<readonly unknown[]>;
  readonly resolve: ResolveDeps;
  /** Argo CD's rendering, per push (absent: the files in Git only). */
  readonly renderer?: ManifestRenderer;
}

/**
 * The ExternalSecret preflight of one matched Application: its manifests at the pushed commit (Argo CD's
 * rendering where the fleet names an Argo CD API, else every source from the pushed repository read from
 * Git), the stores on its destination cluster, then ESO's resolution rules. Failing to read or render is
 * recorded and warns; it never blocks an app.
 */
export function createAppPreflight(deps: AppPreflightDeps): Preflight {
  // One read of a destination cluster's stores per invocation, however many apps deploy there.
  const stores = new Map<string, Promise<readonly unknown[]>>();
  const clusterStores = (cluster: string) => {
    let read = stores.get(cluster);
    if (read === undefined) {
      read = deps.clusterStores(cluster);
      stores.set(cluster, read);
    }
    return read;
  };
  const manifestsOf = createPreflightManifests(deps);
  return async (match, event, limits): Promise<PreflightVerdict> => {
    if (match.object.kind !== 'Application') return { verdict: 'pass', checks: [] };
    // An image push names no commit to read manifests at (the chart's templates are not rendered either).
    if (event.image !== undefined) {
      return { verdict: 'pass', checks: [], summary: 'image push: no manifests in Git to check' };
    }
    const app = match.object.value;
    const raw = match.object.raw as { metadata?: { annotations?: Record<string, unknown> } };
    const host = deps.fleet.clusters.find((c) => c.name === match.target.cluster);
    const policy = secretPolicyFor(raw.metadata?.annotations, host?.secretPolicy ?? deps.fleet.secretPolicy);
    if (policy === 'off')
      return { verdict: 'pass', checks: [], summary: 'secret preflight is off for this app' };

    const pushedKeys = canonicalRepoKeys([...event.repo.urls, event.repo.webUrl]);
    const read = await manifestsOf(match.target.cluster, raw, app, pushedKeys, event, limits);
    const source = { renderedBy: read.renderedBy, ...(read.fallback ? { renderNote: read.fallback } : {}) };
    const { documents, problems } = read;
    if (
      documents.length === 0 &&
      problems.length === 0 &&
      read.unparseable.length === 0 &&
      !read.notRendered
    ) {
      return { verdict: 'pass', checks: [], summary: 'no manifests to check', ...source };
    }
    const destination = destinationCluster(app.destination, match.target.cluster, deps.fleet.clusters);
    const unrendered = read.notRendered ? unrenderedReason(read, match.target.cluster) : undefined;
    const result = await preflightApp(
      {
        documents,
        unparseable: read.unparseable,
        notRendered: read.notRendered,
        ...(unrendered === undefined ? {} : { notRenderedReason: unrendered }),
        limitReached: read.limitReached,
        ...(read.limitMessage === undefined ? {} : { limitMessage: read.limitMessage }),
        // Listed (once per invocation and cluster) only for an app with a reference to resolve.
        clusterStores: destination === undefined ? [] : () => clusterStores(destination),
        overrides: deps.fleet.secretStores,
        policy,
        ...(app.destination.namespace === undefined ? {} : { namespace: app.destination.namespace }),
        ...(destination === undefined ? {} : { cluster: destination }),
      },
      deps.resolve,
    );
    const checks: SecretCheck[] = [
      ...problems,
      ...fallbackCheck(read),
      ...result.checks.map((c) => ({ ...c, renderedBy: c.renderedBy ?? read.renderedBy })),
    ];
    const verdict = result.verdict === 'block' ? 'block' : checks.some(isWarning) ? 'warn' : result.verdict;
    const note = unrendered ?? read.fallback;
    const from = read.renderedBy === 'argocd' ? 'rendered by Argo CD' : 'read from Git';
    const summary = `${result.summary}; manifests ${from}`;
    return { verdict, checks, summary, ...source, ...(note ? { renderNote: note } : {}) };
  };
}

const isWarning = (c: SecretCheck) => c.outcome !== 'ok' || c.esoGap !== undefined;

/** Why a Helm source went unrendered: the Argo CD failure, or that no Argo CD API is configured. */
function unrenderedReason(read: AppManifestsAtPush, cluster: string): string {
  return (
    read.fallback ??
    `no Argo CD API is configured for cluster ${cluster} (set argocdUrl and argocdTokenSecret in the fleet file)`
  );
}

/** A failed render that Git stood in for is said once, as a warning row (Helm rows already say it). */
function fallbackCheck(read: AppManifestsAtPush): SecretCheck[] {
  if (read.fallback === undefined || read.notRendered || read.argocdUnparseable) return [];
  return [
    {
      externalSecret: '(manifests)',
      field: 'manifests',
      outcome: 'not-rendered',
      renderedBy: 'git',
      message: `${read.fallback}; checked the files in Git instead (Kustomize patches and generators not applied)`,
    },
  ];
}
