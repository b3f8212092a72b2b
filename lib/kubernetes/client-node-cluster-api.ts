import http from 'node:http';
import https from 'node:https';
// client-node's HTTP layer only: its generated CustomObjectsApi pulls the ObjectSerializer, which holds
// every Kubernetes model class (~450 KB that each fleet function compiled at every cold start), to send
// the five requests below, whose bodies are JSON it passes through as they are (`any`).
import { HttpMethod, RequestContext } from '@kubernetes/client-node/dist/gen/http/http.js';
import { PatchStrategy } from '@kubernetes/client-node/dist/patch.js';
import type { Logger } from '../ports.js';
import type { AccessSource, ClusterAccess } from './cluster-access.js';
import type { ClusterApi, JsonPatchOperation, KubeObject, ListOptions } from './cluster-api.js';
import { parseBody, toList, toObject } from './kube-answers.js';
import { KubernetesApiError, toKubernetesError } from './kube-error.js';
import { sendOnce } from './no-redirect-http.js';
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
  readonly agent: http.Agent;
}

/** One request as client-node's `CustomObjectsApi` builds it: path, query, JSON body and its type. */
interface KubeRequest {
  readonly method: HttpMethod;
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  readonly body?: unknown;
  readonly contentType?: string;
}

const FIELD_MANAGER = 'gitops-sync';
// What client-node's CustomObjectsApi asks for.
const ACCEPT = 'application/json, */*;q=0.8';

/**
 * `ClusterApi` over client-node 1.4's HTTP layer, sending what its `CustomObjectsApi` sends (any `/apis`
 * group, so Deployments, HPAs and CRDs too) through the no-redirect transport. Credentials, a keep-alive
 * agent and the timeout are applied per request, so a rotated token or kubeconfig never needs a new client.
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
    connection = { key, agent };
    return connection;
  };

  const call = async <T>(
    verb: string,
    resource: KubeResource,
    namespace: string | undefined,
    name: string | undefined,
    run: (access: ClusterAccess, agent: http.Agent) => Promise<T>,
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
        return await run(access, connect(access).agent);
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

  /** The request on its way out: URL, token and agent, as a request middleware set them (`sendOnce` times it). */
  const prepare = (access: ClusterAccess, agent: http.Agent, spec: KubeRequest): RequestContext => {
    const request = new RequestContext(`${access.server.replace(/\/+$/, '')}${spec.path}`, spec.method);
    for (const [key, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined) request.setQueryParam(key, String(value));
    }
    request.setHeaderParam('Accept', ACCEPT);
    request.setHeaderParam('Authorization', `Bearer ${access.token}`);
    if (spec.body !== undefined) {
      request.setHeaderParam('Content-Type', spec.contentType ?? 'application/json');
      request.setBody(JSON.stringify(spec.body));
    }
    request.setAgent(agent);
    return request;
  };

  /** A 2xx answer, its body not read yet; anything else thrown as client-node's `ApiException` carries it. */
  const answer = async (access: ClusterAccess, agent: http.Agent, spec: KubeRequest) => {
    const response = await sendOnce(prepare(access, agent, spec), { timeoutMs: options.timeoutMs });
    const status = response.httpStatusCode;
    if (status === 401) {
      // Read past, so the socket goes back to the agent.
      response.body.binary().catch(() => undefined);
      throw { code: status, body: undefined, headers: response.headers };
    }
    if (status < 200 || status > 299) {
      throw { code: status, body: await response.body.text(), headers: response.headers };
    }
    return response;
  };

  /** A 2xx answer's JSON body (see `answer`). */
  const send = async (access: ClusterAccess, agent: http.Agent, spec: KubeRequest): Promise<unknown> => {
    const response = await answer(access, agent, spec);
    return parseBody(response, await response.body.text());
  };

  const objectPath = (resource: KubeResource, namespace: string | undefined, name?: string): string => {
    const scope =
      resource.namespaced && namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : '';
    // The core group (ConfigMaps) lives under `/api/v1`, every other group under `/apis/<group>/<version>`.
    const groupVersion =
      resource.group === ''
        ? `/api/${encodeURIComponent(resource.version)}`
        : `/apis/${encodeURIComponent(resource.group)}/${encodeURIComponent(resource.version)}`;
    const base = `${groupVersion}${scope}/${encodeURIComponent(resource.plural)}`;
    return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
  };

  /** One named object's path: a namespaced resource always has a namespace segment (empty if none given). */
  const namedPath = (resource: KubeResource, namespace: string | undefined, name: string): string =>
    objectPath(resource, resource.namespaced ? (namespace ?? '') : undefined, name);

  const patch = (
    resource: KubeResource,
    namespace: string | undefined,
    name: string,
    body: unknown,
    contentType: string,
  ): Promise<KubeObject> =>
    call('patch', resource, namespace, name, async (access, agent) =>
      toObject(
        options.cluster,
        await send(access, agent, {
          method: HttpMethod.PATCH,
          path: namedPath(resource, namespace, name),
          query: { fieldManager: FIELD_MANAGER },
          body,
          contentType,
        }),
      ),
    );

  return {
    cluster: options.cluster,

    list: (resource, namespace, listOptions?: ListOptions) =>
      call('list', resource, namespace, undefined, async (access, agent) => {
        const response = await answer(access, agent, {
          method: HttpMethod.GET,
          path: objectPath(resource, resource.namespaced ? namespace : undefined),
          query: {
            continue: listOptions?.continue,
            labelSelector: listOptions?.labelSelector,
            limit: listOptions?.limit,
          },
        });
        // The caller's slot (if any) is taken only now that the server has answered: its time to answer
        // (most of a large LIST's) holds none; the body is read, parsed and slimmed within it.
        const read = async () => {
          const list = toList(parseBody(response, await response.body.text()), options, resource);
          const slim = listOptions?.slim;
          return slim === undefined ? list : { ...list, items: list.items.map((item) => slim(item)) };
        };
        return listOptions?.slot === undefined ? read() : listOptions.slot(read);
      }),

    get: (resource, namespace, name) =>
      call('get', resource, namespace, name, async (access, agent) =>
        toObject(
          options.cluster,
          await send(access, agent, {
            method: HttpMethod.GET,
            path: namedPath(resource, namespace, name),
          }),
        ),
      ),

    mergePatch: (resource, namespace, name, body) =>
      patch(resource, namespace, name, body, PatchStrategy.MergePatch),

    // The lean path: the same request, and the answer's body read only when it is an error.
    mergePatchQuiet: (resource, namespace, name, body) =>
      call('patch', resource, namespace, name, async (access, agent) => {
        const request = prepare(access, agent, {
          method: HttpMethod.PATCH,
          path: namedPath(resource, namespace, name),
          query: { fieldManager: FIELD_MANAGER },
          body,
          contentType: PatchStrategy.MergePatch,
        });
        request.setHeaderParam('Accept', 'application/json');
        const response = await sendOnce(request, { timeoutMs: options.timeoutMs, discardOkBody: true });
        const status = response.httpStatusCode;
        if (status >= 200 && status < 300) {
          // Read past to its end, so the socket goes back to the agent; the PATCH was applied either way.
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
