import { renderQuery } from '../argocd/render-query.js';
import type { ManifestRenderer } from '../argocd-api/renderers.js';
import type { AppManifests } from '../audit/types.js';
import { errorMessage } from '../errors.js';
import type { RepositoryConfig } from '../fleet/fleet-config.js';
import type { GitCredentials } from '../git/credentials.js';
import type { ManifestSet } from '../git/manifest-types.js';
import type { GitReader } from '../git/manifests.js';
import { gitRepoOf } from '../git/remote-refs.js';
import { isGitSource, type RepositoriesRead } from './resolve-repos.js';
import type { TrackedApp } from './tracked-app.js';

const FULL_SHA = /^[0-9a-f]{40}$/i;

export interface ManifestReaderDeps {
  readonly git: Pick<GitReader, 'readManifests'>;
  readonly credentials: (repo: RepositoryConfig) => Promise<GitCredentials | undefined>;
  readonly repositories: Pick<RepositoriesRead, 'repository' | 'resolve'>;
  /** Argo CD's rendering, per pass (absent: the files in Git only). */
  readonly renderer?: ManifestRenderer;
}

export interface AppManifestsRead {
  /** Absent: nothing could be read (manifest rules are skipped and their findings held). */
  readonly manifests?: AppManifests;
  /** Why some or all sources were not read; short, never a URL with credentials. */
  readonly problems: readonly string[];
}

export type ManifestReader = (app: TrackedApp) => Promise<AppManifestsRead>;

/**
 * Reads each app's manifests at the commits Argo CD synced, as the preflight does, with one walk per
 * (repository, commit, path) in a pass: thousands of apps on a few paths cost a few reads. A source that
 * cannot be read makes the rest `limitReached` (partial): what was read is judged, nothing is resolved.
 */
export function createManifestReader(deps: ManifestReaderDeps): ManifestReader {
  const walks = new Map<string, Promise<ManifestSet>>();
  const auths = new Map<string, Promise<GitCredentials | undefined>>();
  const credentials = (repo: RepositoryConfig) => {
    let auth = auths.get(repo.url);
    if (auth === undefined) {
      auth = deps.credentials(repo);
      auths.set(repo.url, auth);
    }
    return auth;
  };
  const walk = (repo: RepositoryConfig, sha: string, path: string, recurse: boolean, ref?: string) => {
    const key = `${repo.url}\n${sha.toLowerCase()}\n${path}\n${recurse}`;
    let pending = walks.get(key);
    if (pending === undefined) {
      pending = credentials(repo).then((auth) =>
        deps.git.readManifests({
          repo: gitRepoOf(repo, auth),
          sha,
          path,
          recurse,
          ...(ref === undefined ? {} : { ref }),
        }),
      );
      walks.set(key, pending);
    }
    return pending;
  };

  return async (app) => {
    const rendered = await renderedByArgoCd(app, deps.renderer);
    if (rendered?.ok === true) return rendered.read;
    const read = await fromGit(app);
    if (rendered === undefined) return read;
    // Git stood in for a failed render: its objects may lack what patches and templates add, so they are
    // partial (findings absent from them are held, not resolved) and the notes say why.
    const problems = [...read.problems, rendered.reason];
    if (read.manifests === undefined) return { ...read, problems };
    const partial = read.manifests.notRendered === true ? {} : { limitReached: true };
    return { manifests: { ...read.manifests, ...partial, renderNote: rendered.reason }, problems };
  };

  async function fromGit(app: TrackedApp): Promise<AppManifestsRead> {
    const docs: { path: string; doc: unknown }[] = [];
    const problems: string[] = [];
    let read = 0;
    let notRendered = false;
    let partial = false;
    for (const { source, synced, recurse } of app.sources) {
      const label = source.path === '' ? '.' : source.path;
      // A `ref:` source without a path only lends values files to the others.
      if (source.ref !== undefined && source.path === '') continue;
      if (!isGitSource(source)) {
        notRendered = true;
        continue;
      }
      const repo = deps.repositories.repository(source);
      if (repo === undefined) {
        problems.push(`source ${label}: repository not in the fleet file`);
        continue;
      }
      if (synced === undefined || !FULL_SHA.test(synced)) {
        problems.push(`source ${label}: no synced commit`);
        continue;
      }
      const resolution = deps.repositories.resolve(source);
      const ref = resolution.kind === 'resolved' ? resolution.resolved.ref : undefined;
      try {
        const set = await walk(repo, synced, source.path, recurse, ref);
        if (set.notRendered) {
          notRendered = true;
          continue;
        }
        read++;
        docs.push(...set.documents);
        if (set.limitReached !== undefined || set.errors.length > 0) partial = true;
      } catch (error) {
        problems.push(`source ${label}: ${errorMessage(error)}`);
      }
    }
    if (read === 0) {
      return notRendered && problems.length === 0
        ? { manifests: { docs: [], notRendered: true }, problems }
        : { problems };
    }
    const limitReached = partial || notRendered || problems.length > 0;
    return {
      manifests: { docs, renderedBy: 'git', ...(limitReached ? { limitReached: true } : {}) },
      problems,
    };
  }
}

type Rendered =
  | { readonly ok: true; readonly read: AppManifestsRead }
  | { readonly ok: false; readonly reason: string };

/**
 * Argo CD's rendering at the revisions it synced (Helm, Kustomize, plugins: what is applied), when the
 * app's cluster names an Argo CD API. A hydrator app is read from its hydrated branch in Git instead.
 */
async function renderedByArgoCd(
  app: TrackedApp,
  renderer: ManifestRenderer | undefined,
): Promise<Rendered | undefined> {
  if (renderer?.available(app.cluster) !== true || app.app.sources.some((s) => s.hydrator !== undefined)) {
    return undefined;
  }
  const synced = new Map(app.sources.map((s) => [s.index, s.synced]));
  const query = renderQuery(app.raw, app.app, (_, index) => synced.get(index));
  if (query === undefined) return undefined;
  // The spec (Helm values, Kustomize options) and the revisions fix the rendering: reuse it across passes.
  const spec = (app.raw as { spec?: unknown } | undefined)?.spec;
  const outcome = await renderer.render(app.cluster, query, JSON.stringify(spec ?? null));
  if (!outcome.ok) return { ok: false, reason: `Argo CD did not render this app: ${outcome.reason}` };
  const docs = outcome.manifests.documents;
  return { ok: true, read: { manifests: { docs, renderedBy: 'argocd' }, problems: [] } };
}
