import { isBuiltIn, type KubeResource, resourceName } from '../../lib/kubernetes/resources.js';
import { KubeStatusError } from './kube-status.js';
import { applyJsonPatch, applyMergePatch } from './patches.js';
import { apiVersionOf, type ResourceStore, type StoredObject } from './resource-store.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';

export interface ResourceRequest {
  readonly verb: string;
  readonly resource: KubeResource;
  readonly namespace?: string;
  readonly name?: string;
  readonly query: URLSearchParams;
  readonly contentType: string;
  readonly body: unknown;
}

/** A list of stored objects, as `list` answers it. */
export interface KubeList {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  readonly items: readonly StoredObject[];
}

export interface Answer {
  readonly status: number;
  readonly body: StoredObject | KubeList;
}

/** Serves one non-watch request against the store; failures are thrown as `KubeStatusError`s. */
export function handleResource(store: ResourceStore, request: ResourceRequest): Answer {
  const { resource, namespace, name } = request;
  switch (request.verb) {
    case 'list':
      return { status: 200, body: list(store, request) };
    case 'get':
      return { status: 200, body: store.require(resource, namespace, name ?? '') };
    case 'create':
      return { status: 201, body: store.create(resource, objectFrom(request, namespace)) };
    case 'update': {
      const object = objectFrom(request, namespace);
      if (object.metadata.name !== name) {
        throw new KubeStatusError(
          400,
          `the name of the object (${object.metadata.name}) does not match the name on the URL (${name})`,
        );
      }
      return { status: 200, body: store.replace(resource, object, object.metadata.resourceVersion ?? '') };
    }
    case 'patch':
      return { status: 200, body: patch(store, request) };
    case 'delete':
      return { status: 200, body: store.delete(resource, namespace, name ?? '') };
    default:
      throw new KubeStatusError(405, `the server does not allow this method on the requested resource`);
  }
}

function list(store: ResourceStore, request: ResourceRequest): KubeList {
  const labels = parseLabelSelector(request.query.get('labelSelector'));
  const fields = parseFieldSelector(request.query.get('fieldSelector'));
  const all = store
    .list(request.resource, request.resource.namespaced ? request.namespace : undefined)
    .filter((o) => labels(o.metadata.labels) && fields(o));
  // Like a real API server before 1.31's consistent cache reads: `resourceVersion=0` (or NotOlderThan) is
  // served from the watch cache, which ignores `limit` and sends everything in one answer.
  const fromCache =
    request.query.get('resourceVersion') === '0' ||
    request.query.get('resourceVersionMatch') === 'NotOlderThan';
  const limit = fromCache ? 0 : Number(request.query.get('limit') ?? '0');
  const after = decodeContinue(request.query.get('continue'));
  const start = after === undefined ? 0 : all.findIndex((o) => keyOf(o) > after);
  const from = start < 0 ? all.length : start;
  const items = limit > 0 ? all.slice(from, from + limit) : all.slice(from);
  const remaining = all.length - from - items.length;
  const last = items[items.length - 1];
  return {
    apiVersion: apiVersionOf(request.resource),
    kind: `${request.resource.kind}List`,
    metadata: {
      resourceVersion: store.resourceVersion,
      ...(remaining > 0 && last !== undefined
        ? { continue: Buffer.from(keyOf(last)).toString('base64url'), remainingItemCount: remaining }
        : {}),
    },
    items,
  };
}

function patch(store: ResourceStore, request: ResourceRequest): StoredObject {
  const { resource, namespace, name = '' } = request;
  const current = store.require(resource, namespace, name);
  const type = request.contentType.split(';')[0]?.trim().toLowerCase();
  let patched: unknown;
  if (type === 'application/merge-patch+json') patched = applyMergePatch(current, request.body);
  else if (type === 'application/json-patch+json') patched = applyJsonPatch(current, request.body);
  else if (type === 'application/strategic-merge-patch+json' && isBuiltIn(resource)) {
    // Close enough for the built-in kinds the simulator serves; custom resources refuse it as Kubernetes does.
    patched = applyMergePatch(current, request.body);
  } else {
    throw new KubeStatusError(
      415,
      `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json${isBuiltIn(resource) ? ', application/strategic-merge-patch+json' : ''}`,
    );
  }
  const object = patched as StoredObject;
  if (typeof object?.metadata !== 'object' || object.metadata === null) {
    throw new KubeStatusError(
      422,
      `${resourceName(resource)} "${name}" is invalid: metadata: Required value`,
    );
  }
  if (object.metadata.name !== name || object.metadata.namespace !== current.metadata.namespace) {
    throw new KubeStatusError(
      422,
      `${resourceName(resource)} "${name}" is invalid: metadata.name: the name and namespace cannot be changed`,
    );
  }
  return store.replace(resource, object, object.metadata.resourceVersion ?? '');
}

function objectFrom(request: ResourceRequest, namespace: string | undefined): StoredObject {
  const body = request.body as StoredObject | undefined;
  if (
    typeof body !== 'object' ||
    body === null ||
    typeof body.metadata?.name !== 'string' ||
    body.metadata.name === ''
  ) {
    throw new KubeStatusError(
      422,
      `${resourceName(request.resource)} is invalid: metadata.name: Required value`,
    );
  }
  if (body.kind !== undefined && body.kind !== request.resource.kind) {
    throw new KubeStatusError(
      400,
      `the kind of the object (${String(body.kind)}) does not match the URL (${request.resource.kind})`,
    );
  }
  if (
    namespace !== undefined &&
    body.metadata.namespace !== undefined &&
    body.metadata.namespace !== namespace
  ) {
    throw new KubeStatusError(
      400,
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  }
  return namespace === undefined ? body : { ...body, metadata: { ...body.metadata, namespace } };
}

/**
 * The answer's JSON, byte for byte what `JSON.stringify(answer.body)` gives, from the store's cached text of
 * each object: a page of 500 large Applications is a concatenation, not 500 serialisations.
 */
export function answerJson(store: ResourceStore, answer: Answer): Buffer {
  const body = answer.body;
  if (!('items' in body) || !Array.isArray(body.items)) return store.json(body as StoredObject);
  const { items, ...rest } = body;
  const parts: Buffer[] = [Buffer.from(`${JSON.stringify(rest).slice(0, -1)},"items":[`)];
  const comma = Buffer.from(',');
  items.forEach((item, i) => {
    if (i > 0) parts.push(comma);
    parts.push(store.json(item));
  });
  parts.push(Buffer.from(']}'));
  return Buffer.concat(parts);
}

function decodeContinue(token: string | null): string | undefined {
  if (token === null || token === '') return undefined;
  return Buffer.from(token, 'base64url').toString('utf8');
}

function keyOf(object: StoredObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}
