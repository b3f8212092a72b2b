import { errorMessage } from '../errors.js';
import type { ClusterConfig } from '../fleet/fleet-config.js';
import type { Logger, SecretReader } from '../ports.js';
import { type ArgoCdApi, type ArgoCdApiOptions, createArgoCdApi } from './argocd-api.js';
import type { ManifestsQuery, RenderedManifests } from './manifests-query.js';

export type RenderOutcome =
  | { readonly ok: true; readonly manifests: RenderedManifests }
  | { readonly ok: false; readonly reason: string };

/** Argo CD's rendering of the fleet's apps, looked up by the cluster the Application lives on. */
export interface ManifestRenderer {
  /** Whether this cluster's fleet entry names an Argo CD API and a token. */
  available(cluster: string): boolean;
  /** Never throws: a failure is an outcome with its reason (never the token). */
  render(cluster: string, query: ManifestsQuery): Promise<RenderOutcome>;
}

export type ApiTuning = Omit<ArgoCdApiOptions, 'url' | 'token' | 'caData'>;

/**
 * One API client per cluster with `argocdUrl` and a token (built once per cold start; each has its own
 * concurrency bound). The token is read through the SecretReader, which caches it; the URL is only ever
 * the fleet file's.
 */
export function createArgoCdApis(
  clusters: readonly ClusterConfig[],
  deps: { readonly secrets: SecretReader; readonly tuning?: ApiTuning },
): ReadonlyMap<string, ArgoCdApi> {
  const apis = new Map<string, ArgoCdApi>();
  for (const cluster of clusters) {
    const { argocdUrl, argocdToken, argocdTokenSecret, argocdCaData } = cluster;
    if (argocdUrl === undefined || (argocdToken === undefined && argocdTokenSecret === undefined)) continue;
    const token =
      argocdToken === undefined
        ? async () => parseArgoCdToken(await deps.secrets.getSecretString(argocdTokenSecret as string))
        : async () => argocdToken;
    apis.set(
      cluster.name,
      createArgoCdApi({
        ...deps.tuning,
        url: argocdUrl,
        token,
        ...(argocdCaData === undefined ? {} : { caData: argocdCaData }),
      }),
    );
  }
  return apis;
}

/** An Argo CD token secret: the token itself, or JSON `{"token": "..."}`. Errors never quote it. */
export function parseArgoCdToken(secret: string): string {
  const text = secret.trim();
  if (!text.startsWith('{')) {
    if (text === '' || /\s/.test(text)) throw new Error('the Argo CD token secret is empty or not one token');
    return text;
  }
  try {
    const token = (JSON.parse(text) as { token?: unknown }).token;
    if (typeof token === 'string' && token.trim() !== '' && !/\s/.test(token.trim())) return token.trim();
  } catch {
    // reported below, without the value
  }
  throw new Error('the Argo CD token secret is JSON without a "token" string');
}

/**
 * A renderer for one push (or one reconcile pass): each (cluster, app, revisions) is asked once, however
 * many checks want it; failures are cached too, so an Argo CD that is down costs one try per app.
 */
export function createRenderCache(apis: ReadonlyMap<string, ArgoCdApi>, logger?: Logger): ManifestRenderer {
  const answers = new Map<string, Promise<RenderOutcome>>();
  return {
    available: (cluster) => apis.has(cluster),
    render(cluster, query) {
      const key = JSON.stringify([cluster, query.appNamespace, query.name, query.revision, query.sources]);
      let pending = answers.get(key);
      if (pending === undefined) {
        const api = apis.get(cluster);
        pending =
          api === undefined
            ? Promise.resolve({ ok: false, reason: `no Argo CD API for cluster ${cluster}` })
            : api.manifests(query).then(
                (manifests): RenderOutcome => ({ ok: true, manifests }),
                (error: unknown): RenderOutcome => {
                  const reason = errorMessage(error);
                  logger?.warn('argocd render failed', { cluster, app: query.name, reason });
                  return { ok: false, reason };
                },
              );
        answers.set(key, pending);
      }
      return pending;
    },
  };
}
