import type { ApplicationSource } from '../argocd/application.js';
import { errorMessage } from '../errors.js';
import { destinationCluster } from '../fleet/destination.js';
import type { FleetConfig, RepositoryConfig } from '../fleet/fleet-config.js';
import { repositoryFor } from '../fleet/repositories.js';
import type { GitCredentials } from '../git/credentials.js';
import type { GitReader } from '../git/manifests.js';
import { canonicalRepoKeys } from '../matching/repo-url.js';
import type { ManifestDocument } from '../secrets/extract.js';
import { preflightApp, secretPolicyFor } from '../secrets/preflight.js';
import type { ResolveDeps } from '../secrets/resolve.js';
import type { SecretCheck } from '../secrets/secret-check.js';
import type { PushEvent } from '../webhook/push-event.js';
import type { Preflight, PreflightVerdict } from './fanout.js';

export interface AppPreflightDeps {
  readonly fleet: FleetConfig;
  readonly git: GitReader;
  readonly credentials: (repo: RepositoryConfig) => Promise<GitCredentials | undefined>;
  /** SecretStores and ClusterSecretStores on a fleet cluster (empty when it cannot be read). */
  readonly clusterStores: (cluster: string) => Promise<readonly unknown[]>;
  readonly resolve: ResolveDeps;
}

/**
 * The ExternalSecret preflight of one matched Application: its manifests at the pushed commit (every source
 * from the pushed repository, read through the fleet's repository entry), the stores on its destination
 * cluster, then ESO's resolution rules. Failing to read Git is recorded and warns; it never blocks an app.
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
  // Apps of one repository often share paths (one per service and cluster): read each path once per commit.
  const reads = new Map<string, Promise<SourceRead>>();
  const read = (source: ApplicationSource, event: PushEvent) => {
    const key = `${source.repoKey ?? ''}@${event.after}:${source.path}:${source.chart ?? ''}`;
    let pending = reads.get(key);
    if (pending === undefined) {
      pending = readSource(source, event, deps);
      reads.set(key, pending);
    }
    return pending;
  };
  return async (match, event): Promise<PreflightVerdict> => {
    if (match.object.kind !== 'Application') return { verdict: 'pass', checks: [] };
    const app = match.object.value;
    const raw = match.object.raw as { metadata?: { annotations?: Record<string, unknown> } };
    const host = deps.fleet.clusters.find((c) => c.name === match.target.cluster);
    const policy = secretPolicyFor(raw.metadata?.annotations, host?.secretPolicy ?? deps.fleet.secretPolicy);
    if (policy === 'off')
      return { verdict: 'pass', checks: [], summary: 'secret preflight is off for this app' };

    const pushedKeys = canonicalRepoKeys([...event.repo.urls, event.repo.webUrl]);
    const sources = app.sources.filter(
      (s) => s.repoKey !== undefined && pushedKeys.has(s.repoKey) && s.ref === undefined,
    );
    const documents: ManifestDocument[] = [];
    const problems: SecretCheck[] = [];
    let notRendered = false;
    let limitReached = false;
    let limitMessage: string | undefined;
    for (const source of sources) {
      const result = await read(source, event);
      if ('problem' in result) {
        problems.push(result.problem);
        continue;
      }
      documents.push(...result.documents);
      notRendered ||= result.notRendered;
      limitReached ||= result.limitReached;
      limitMessage ??= result.limitMessage;
    }
    if (documents.length === 0 && problems.length === 0 && !notRendered) {
      return { verdict: 'pass', checks: [], summary: 'no manifests to check' };
    }
    const destination = destinationCluster(app.destination, match.target.cluster, deps.fleet.clusters);
    const result = await preflightApp(
      {
        documents,
        notRendered,
        limitReached,
        ...(limitMessage === undefined ? {} : { limitMessage }),
        clusterStores: destination === undefined ? [] : await clusterStores(destination),
        overrides: deps.fleet.secretStores,
        policy,
        ...(app.destination.namespace === undefined ? {} : { namespace: app.destination.namespace }),
        ...(destination === undefined ? {} : { cluster: destination }),
      },
      deps.resolve,
    );
    if (problems.length === 0) return result;
    return {
      verdict: result.verdict === 'block' ? 'block' : 'warn',
      checks: [...problems, ...result.checks],
      summary: result.summary,
    };
  };
}

type SourceRead =
  | {
      readonly documents: readonly ManifestDocument[];
      readonly notRendered: boolean;
      readonly limitReached: boolean;
      readonly limitMessage?: string;
    }
  | { readonly problem: SecretCheck };

async function readSource(
  source: ApplicationSource,
  event: PushEvent,
  deps: AppPreflightDeps,
): Promise<SourceRead> {
  if (source.chart !== undefined) return { documents: [], notRendered: true, limitReached: false };
  const repo = repositoryFor(source.repoKey, deps.fleet.repositories);
  const field = `source ${source.path === '' ? '.' : source.path}`;
  // The orchestrator never fetches a repository the fleet file does not list: no manifests, nothing to check.
  if (repo === undefined) return { documents: [], notRendered: false, limitReached: false };
  try {
    const auth = await deps.credentials(repo);
    const set = await deps.git.readManifests({
      repo: {
        url: repo.url,
        ...(auth === undefined ? {} : { auth }),
        ...(repo.provider === undefined ? {} : { provider: repo.provider }),
      },
      sha: event.after,
      path: source.path,
      ref: event.ref,
    });
    return {
      documents: set.documents,
      notRendered: set.notRendered,
      limitReached: set.limitReached !== undefined,
      ...(set.limitMessage === undefined ? {} : { limitMessage: set.limitMessage }),
    };
  } catch (error) {
    return {
      problem: {
        externalSecret: '*',
        field,
        outcome: 'error',
        message: `manifests not read: ${errorMessage(error)}`,
      },
    };
  }
}
