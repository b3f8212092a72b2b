import type { Application, ApplicationSource } from '../argocd/application.js';
import { renderQuery } from '../argocd/render-query.js';
import type { RequestLimits } from '../argocd-api/argocd-api.js';
import type { ManifestRenderer } from '../argocd-api/renderers.js';
import { errorMessage } from '../errors.js';
import type { FleetConfig, RepositoryConfig } from '../fleet/fleet-config.js';
import { repositoryFor } from '../fleet/repositories.js';
import type { GitCredentials } from '../git/credentials.js';
import type { GitReader, ReadManifestsRequest } from '../git/manifests.js';
import { gitRepoOf } from '../git/remote-refs.js';
import type { ManifestDocument } from '../secrets/extract.js';
import type { SecretCheck } from '../secrets/secret-check.js';
import { type ParseProblem, unparseableCheck, unparseableFromArgoCd } from '../secrets/unparseable.js';
import { type PushEvent, ZERO_SHA } from '../webhook/push-event.js';

export interface PreflightManifestDeps {
  readonly fleet: FleetConfig;
  readonly git: GitReader;
  readonly credentials: (repo: RepositoryConfig) => Promise<GitCredentials | undefined>;
  readonly renderer?: ManifestRenderer;
}

/** An app's manifests at the pushed commit, and where they came from. */
export interface AppManifestsAtPush {
  readonly documents: readonly ManifestDocument[];
  readonly renderedBy: 'argocd' | 'git';
  /** Why Argo CD's rendering was not used (absent when it was, or when no Argo CD API is configured). */
  readonly fallback?: string;
  readonly notRendered: boolean;
  readonly limitReached: boolean;
  /** Which read bound stopped it, in words (`too many entries: …`). */
  readonly limitMessage?: string;
  /** Sources whose files could not be read from Git. */
  readonly problems: readonly SecretCheck[];
  /** Manifest files that do not parse (`unparseable`): from Argo CD's answer when it gave one, else Git's. */
  readonly unparseable: readonly SecretCheck[];
  /** Argo CD answered that a manifest does not parse (its check is in `unparseable`). */
  readonly argocdUnparseable?: true;
}

/**
 * Argo CD's own rendering of the app at the pushed commit when the cluster it lives on names an Argo CD
 * API (Helm, Kustomize, plugins: what the sync will apply), else the files in Git as the preflight always
 * read them. A failed render falls back to Git and says why.
 */
export function createPreflightManifests(deps: PreflightManifestDeps) {
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

  return async (
    cluster: string,
    raw: unknown,
    app: Application,
    pushedKeys: ReadonlySet<string>,
    event: PushEvent,
    limits: RequestLimits = {},
  ): Promise<AppManifestsAtPush> => {
    let fallback: string | undefined;
    let argocdParse: SecretCheck | undefined;
    if (deps.renderer?.available(cluster) === true) {
      const pushed = (s: ApplicationSource) => s.repoKey !== undefined && pushedKeys.has(s.repoKey);
      const query = renderQuery(raw, app, (s) => (pushed(s) ? event.after : undefined));
      const outcome =
        query === undefined ? undefined : await deps.renderer.render(cluster, query, undefined, limits);
      if (outcome?.ok === true) {
        const documents = outcome.manifests.documents;
        return {
          documents,
          renderedBy: 'argocd',
          notRendered: false,
          limitReached: false,
          problems: [],
          unparseable: [],
        };
      }
      // No query: no source renders from the pushed repository (a hydrator's sync branch): Git as always.
      if (outcome !== undefined) fallback = `Argo CD did not render this app: ${outcome.reason}`;
      // Argo CD's word on a manifest that does not parse stands; Git is still read for the ExternalSecrets.
      argocdParse = outcome === undefined ? undefined : unparseableFromArgoCd(outcome.reason);
    }
    const sources = app.sources.filter(
      (s) => s.repoKey !== undefined && pushedKeys.has(s.repoKey) && s.ref === undefined,
    );
    const documents: ManifestDocument[] = [];
    const problems: SecretCheck[] = [];
    const unparseable: SecretCheck[] = [];
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
      unparseable.push(...result.unparseable.map(unparseableCheck));
      notRendered ||= result.notRendered;
      limitReached ||= result.limitReached;
      limitMessage ??= result.limitMessage;
    }
    return {
      documents,
      renderedBy: 'git',
      ...(fallback === undefined ? {} : { fallback }),
      notRendered,
      limitReached,
      ...(limitMessage === undefined ? {} : { limitMessage }),
      problems,
      unparseable: argocdParse === undefined ? unparseable : [argocdParse],
      ...(argocdParse === undefined ? {} : { argocdUnparseable: true as const }),
    };
  };
}

type SourceRead =
  | {
      readonly documents: readonly ManifestDocument[];
      readonly notRendered: boolean;
      readonly limitReached: boolean;
      readonly limitMessage?: string;
      readonly unparseable: readonly ParseProblem[];
    }
  | { readonly problem: SecretCheck };

async function readSource(
  source: ApplicationSource,
  event: PushEvent,
  deps: PreflightManifestDeps,
): Promise<SourceRead> {
  const nothing = { documents: [], limitReached: false, unparseable: [] };
  if (source.chart !== undefined) return { ...nothing, notRendered: true };
  const repo = repositoryFor(source.repoKey, deps.fleet.repositories);
  const field = `source ${source.path === '' ? '.' : source.path}`;
  // The orchestrator never fetches a repository the fleet file does not list: no manifests, nothing to check.
  if (repo === undefined) return { ...nothing, notRendered: false };
  try {
    const auth = await deps.credentials(repo);
    const set = await deps.git.readManifests({
      repo: gitRepoOf(repo, auth),
      sha: event.after,
      path: source.path,
      ref: event.ref,
      ...unchangedSince(event),
    });
    return {
      documents: set.documents,
      notRendered: set.notRendered,
      limitReached: set.limitReached !== undefined,
      ...(set.limitMessage === undefined ? {} : { limitMessage: set.limitMessage }),
      unparseable: set.errors.filter((e) => e.unparseable === true),
    };
  } catch (error) {
    return {
      problem: {
        externalSecret: '*',
        field,
        outcome: 'error',
        renderedBy: 'git',
        message: `manifests not read: ${errorMessage(error)}`,
      },
    };
  }
}

/**
 * What the push changed since the commit before it, when that is known in full: a directory it left alone
 * reads as it did at that commit (`ReadManifestsRequest.unchangedSince`), without waiting for the fetch of
 * the pushed one. The same list decides which apps are refreshed.
 */
export function unchangedSince(event: PushEvent): Pick<ReadManifestsRequest, 'unchangedSince'> {
  if (!event.changedFiles.known || event.deleted || event.image !== undefined || event.before === ZERO_SHA)
    return {};
  return { unchangedSince: { sha: event.before, files: event.changedFiles.files } };
}
