import http from 'node:http';
import https from 'node:https';
// The generated API client only (`dist/gen`): the package root also loads KubeConfig and its exec, OIDC,
// Azure, GCP, websocket, SOCKS and js-yaml dependencies (~300 KB) that no function uses.
import {
  type ConfigurationOptions,
  CustomObjectsApi,
  createConfiguration,
  HttpMethod,
  Observable,
  type ObservableMiddleware,
  RequestContext,
  type ResponseContext,
  ServerConfiguration,
} from '@kubernetes/client-node/dist/gen/index.js';
import { PatchStrategy } from '@kubernetes/client-node/dist/patch.js';
import type { Logger } from '../ports.js';
import type { AccessSource, ClusterAccess } from './cluster-access.js';
import type { ClusterApi, JsonPatchOperation, KubeList, KubeObject, ListOptions } from './cluster-api.js';
import { KubernetesApiError, toKubernetesError } from './kube-error.js';
import { noRedirectHttpLibrary, sendOnce } from './no-redirect-http.js';
import { type KubeResource, resourceName } from './resources.js';

export interface ClientNodeClusterApiOptions {
  readonly cluster: string;
  readonly access: AccessSource;
  /** Per-request timeout (the request is aborted, and fails retryable). */
  readonly timeoutMs: number;
  /** Sockets kept open to this API server (default 16). */
  readonly maxSockets?: number;
  readonly logger?: Logger;
}

interface Connection {
  readonly key: string;
  readonly api: CustomObjectsApi;
  readonly agent: http.Agent;
}

const FIELD_MANAGER = 'gitops-sync';

/**
 * `ClusterApi` over `@kubernetes/client-node` 1.4's `CustomObjectsApi` (it serves any `/apis` group, so
 * Deployments, HPAs and CRDs too). Credentials, a keep-alive agent and the timeout are applied per request
 * by a middleware, so a rotated token or kubeconfig never needs a new client.
 */
export function createClientNodeClusterApi(options: ClientNodeClusterApiOptions): ClusterApi {
  let connection: Connection | undefined;

  const connect = (access: ClusterAccess): Connection => {
    const key = `${access.server}\n${access.caData ?? ''}`;
    if (connection?.key === key) return connection;
    connection?.agent.destroy();
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 16 };
    const agent = access.server.startsWith('http:')
      ? new http.Agent(agentOptions)
      : new https.Agent({
          ...agentOptions,
          ...(access.caData === undefined ? {} : { ca: Buffer.from(access.caData, 'base64') }),
        });
    const configuration = createConfiguration({
      baseServer: new ServerConfiguration(access.server.replace(/\/+$/, ''), {}),
      authMethods: {},
      httpApi: noRedirectHttpLibrary(),
    });
    connection = { key, api: new CustomObjectsApi(configuration), agent };
    return connection;
  };

  const call = async <T>(
    verb: string,
    resource: KubeResource,
    namespace: string | undefined,
    name: string | undefined,
    run: (
      api: CustomObjectsApi,
      requestOptions: ConfigurationOptions,
      access: ClusterAccess,
      agent: http.Agent,
    ) => Promise<T>,
    contentType?: string,
  ): Promise<T> => {
    const context = {
      cluster: options.cluster,
      verb,
      resource: resourceName(resource),
      namespace: resource.namespaced ? namespace : undefined,
      name,
      timeoutMs: options.timeoutMs,
    };
    let usedToken: string | undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        const access = await options.access.access();
        usedToken = access.token;
        const { api, agent } = connect(access);
        return await run(
          api,
          {
            middleware: [requestMiddleware(access.token, agent, options.timeoutMs, contentType)],
            middlewareMergeStrategy: 'append',
          },
          access,
          agent,
        );
      } catch (error) {
        const failure = toKubernetesError(error, context);
        // A 401 after rotation or expiry: fetch fresh credentials once and try again if they changed.
        if (attempt === 1 && failure instanceof KubernetesApiError && failure.upstreamStatus === 401) {
          options.access.invalidate();
          const fresh = await options.access.access().catch(() => undefined);
          if (fresh !== undefined && fresh.token !== usedToken) continue;
        }
        throw failure;
      }
    }
  };

  const patch = (
    resource: KubeResource,
    namespace: string | undefined,
    name: string,
    body: unknown,
    contentType: string,
  ): Promise<KubeObject> =>
    call(
      'patch',
      resource,
      namespace,
      name,
      async (api, requestOptions) =>
        toObject(
          options.cluster,
          resource.namespaced
            ? await api.patchNamespacedCustomObject(
                {
                  ...coordinates(resource),
                  namespace: namespace ?? '',
                  name,
                  body,
                  fieldManager: FIELD_MANAGER,
                },
                requestOptions,
              )
            : await api.patchClusterCustomObject(
                { ...coordinates(resource), name, body, fieldManager: FIELD_MANAGER },
                requestOptions,
              ),
        ),
      contentType,
    );

  return {
    cluster: options.cluster,

    list: (resource, namespace, listOptions?: ListOptions) =>
      call('list', resource, namespace, undefined, async (api, requestOptions) => {
        const selector = {
          ...(listOptions?.labelSelector === undefined ? {} : { labelSelector: listOptions.labelSelector }),
          ...(listOptions?.limit === undefined ? {} : { limit: listOptions.limit }),
          ...(listOptions?.continue === undefined ? {} : { _continue: listOptions.continue }),
        };
        const body: unknown =
          resource.namespaced && namespace !== undefined
            ? await api.listNamespacedCustomObject(
                { ...coordinates(resource), namespace, ...selector },
                requestOptions,
              )
            : await api.listClusterCustomObject({ ...coordinates(resource), ...selector }, requestOptions);
        return toList(body, options, resource);
      }),

    get: (resource, namespace, name) =>
      call('get', resource, namespace, name, async (api, requestOptions) =>
        toObject(
          options.cluster,
          resource.namespaced
            ? await api.getNamespacedCustomObject(
                { ...coordinates(resource), namespace: namespace ?? '', name },
                requestOptions,
              )
            : await api.getClusterCustomObject({ ...coordinates(resource), name }, requestOptions),
        ),
      ),

    mergePatch: (resource, namespace, name, body) =>
      patch(resource, namespace, name, body, PatchStrategy.MergePatch),

    // The lean path: the same request client-node would build (URL, token, agent, timeout, no redirects),
    // sent directly, and the answer's body read only when it is an error.
    mergePatchQuiet: (resource, namespace, name, body) =>
      call('patch', resource, namespace, name, async (_api, _options, access, agent) => {
        const base = access.server.replace(/\/+$/, '');
        const scope = resource.namespaced ? `/namespaces/${encodeURIComponent(namespace ?? '')}` : '';
        const path = `/apis/${resource.group}/${resource.version}${scope}/${resource.plural}/${encodeURIComponent(name)}`;
        const request = new RequestContext(`${base}${path}?fieldManager=${FIELD_MANAGER}`, HttpMethod.PATCH);
        request.setHeaderParam('Authorization', `Bearer ${access.token}`);
        request.setHeaderParam('Content-Type', PatchStrategy.MergePatch);
        request.setHeaderParam('Accept', 'application/json');
        request.setBody(JSON.stringify(body));
        request.setAgent(agent);
        request.setSignal(AbortSignal.timeout(options.timeoutMs));
        const response = await sendOnce(request);
        const status = response.httpStatusCode;
        if (status >= 200 && status < 300) {
          await response.body.binary().catch(() => undefined);
          return;
        }
        const text = (await response.body.binary().catch(() => Buffer.alloc(0))).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {}
        throw { code: status, body: parsed, headers: response.headers };
      }),

    jsonPatch: (resource, namespace, name, operations: readonly JsonPatchOperation[]) =>
      patch(resource, namespace, name, operations, PatchStrategy.JsonPatch),
  };
}

function coordinates(resource: KubeResource): { group: string; version: string; plural: string } {
  return { group: resource.group, version: resource.version, plural: resource.plural };
}

function requestMiddleware(
  token: string,
  agent: http.Agent,
  timeoutMs: number,
  contentType: string | undefined,
): ObservableMiddleware {
  return {
    pre: (request: RequestContext) => {
      request.setHeaderParam('Authorization', `Bearer ${token}`);
      if (contentType !== undefined) request.setHeaderParam('Content-Type', contentType);
      request.setAgent(agent);
      request.setSignal(AbortSignal.timeout(timeoutMs));
      return new Observable(Promise.resolve(request));
    },
    post: (response: ResponseContext) => new Observable(Promise.resolve(response)),
  };
}

function toObject(cluster: string, body: unknown): KubeObject {
  if (!isKubeObject(body)) {
    throw new KubernetesApiError(`cluster ${cluster}: the API server answered with something not an object`, {
      cluster,
      retryable: false,
    });
  }
  return body;
}

function toList(body: unknown, options: ClientNodeClusterApiOptions, resource: KubeResource): KubeList {
  const list = body as {
    items?: unknown;
    metadata?: { resourceVersion?: unknown; continue?: unknown };
  } | null;
  if (list === null || typeof list !== 'object' || !Array.isArray(list.items)) {
    throw new KubernetesApiError(`cluster ${options.cluster}: list ${resourceName(resource)}: not a list`, {
      cluster: options.cluster,
      retryable: false,
    });
  }
  const items = list.items.filter(isKubeObject);
  if (items.length < list.items.length) {
    options.logger?.warn('skipped objects without metadata.name', {
      cluster: options.cluster,
      resource: resourceName(resource),
      skipped: list.items.length - items.length,
    });
  }
  const resourceVersion = list.metadata?.resourceVersion;
  const next = list.metadata?.continue;
  return {
    items,
    resourceVersion: typeof resourceVersion === 'string' ? resourceVersion : '',
    ...(typeof next === 'string' && next !== '' ? { continue: next } : {}),
  };
}

function isKubeObject(value: unknown): value is KubeObject {
  const metadata = (value as { metadata?: { name?: unknown } } | null)?.metadata;
  return typeof value === 'object' && value !== null && typeof metadata?.name === 'string';
}
