import { createHash } from 'node:crypto';
import { errorMessage } from '../errors.js';
import type { ClusterConfig } from '../fleet/fleet-config.js';
import type { Logger, SecretReader } from '../ports.js';
import {
  type ArgoCdApi,
  ArgoCdApiError,
  type ArgoCdApiOptions,
  createArgoCdApi,
  type RequestLimits,
} from './argocd-api.js';
import type { ManifestsQuery, RenderedManifests } from './manifests-query.js';

export type RenderOutcome =
  | { readonly ok: true; readonly manifests: RenderedManifests }
  | { readonly ok: false; readonly reason: string };

/** Argo CD's rendering of the fleet's apps, looked up by the cluster the Application lives on. */
export interface ManifestRenderer {
  /** Whether this cluster's fleet entry names an Argo CD API and a token. */
  available(cluster: string): boolean;
  /**
   * Never throws: a failure is an outcome with its reason (never the token). `fingerprint` (the app's spec)
   * lets a successful render be reused across passes while the spec and revisions stay the same; the
   * caller's `deadlineMs` ends the request (a render already in flight for another caller keeps its own).
   */
  render(
    cluster: string,
    query: ManifestsQuery,
    fingerprint?: string,
    limits?: RequestLimits,
  ): Promise<RenderOutcome>;
}

/** Successful renders kept for the life of a warm container (reconcile passes), bounded in count and age. */
export interface RenderMemo {
  get(key: string, now: number): RenderedManifests | undefined;
  set(key: string, manifests: RenderedManifests, now: number): void;
}

export function createRenderMemo(options: { maxEntries?: number; maxAgeMs?: number } = {}): RenderMemo {
  const maxEntries = options.maxEntries ?? 2000;
  const maxAgeMs = options.maxAgeMs ?? 60 * 60_000;
  const entries = new Map<string, { at: number; manifests: RenderedManifests }>();
  return {
    get(key, now) {
      const hit = entries.get(key);
      if (hit === undefined || now - hit.at > maxAgeMs) return undefined;
      return hit.manifests;
    },
    set(key, manifests, now) {
      entries.delete(key);
      entries.set(key, { at: now, manifests });
      // Maps iterate in insertion order: the first key is the oldest write.
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },
  };
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
export function createRenderCache(
  apis: ReadonlyMap<string, ArgoCdApi>,
  logger?: Logger,
  memo?: RenderMemo,
): ManifestRenderer {
  const answers = new Map<string, Promise<RenderOutcome>>();
  return {
    available: (cluster) => apis.has(cluster),
    render(cluster, query, fingerprint, limits) {
      const key = JSON.stringify([cluster, query.appNamespace, query.name, query.revision, query.sources]);
      const memoKey =
        fingerprint === undefined
          ? undefined
          : `${key}#${createHash('sha256').update(fingerprint).digest('hex')}`;
      const remembered = memoKey === undefined ? undefined : memo?.get(memoKey, Date.now());
      if (remembered !== undefined) return Promise.resolve({ ok: true, manifests: remembered });
      let pending = answers.get(key);
      if (pending === undefined) {
        const api = apis.get(cluster);
        pending =
          api === undefined
            ? Promise.resolve({ ok: false, reason: `no Argo CD API for cluster ${cluster}` })
            : api.manifests(query, limits).then(
                (manifests): RenderOutcome => {
                  if (memoKey !== undefined) memo?.set(memoKey, manifests, Date.now());
                  return { ok: true, manifests };
                },
                (error: unknown): RenderOutcome => {
                  // Cut by the caller's budget, not failed: the next work item asks again.
                  if (error instanceof ArgoCdApiError && error.cutByDeadline) answers.delete(key);
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
