import type { KubeResource } from '../../lib/kubernetes/resources.js';
import {
  coreResources,
  coreVersions,
  group,
  groupList,
  namespace,
  namespaceList,
  resourceList,
  versionInfo,
} from './discovery.js';
import type { ResourceStore } from './resource-store.js';

export type Route =
  | { readonly type: 'discovery'; readonly body: object | undefined }
  | {
      readonly type: 'resource';
      readonly verb: string;
      readonly resource: KubeResource;
      readonly namespace?: string;
      readonly name?: string;
      readonly subresource?: string;
    }
  | { readonly type: 'unknown' };

/** Maps a request to discovery or to (verb, resource, namespace, name) the way the API server does. */
export function parseRoute(method: string, url: URL, store: ResourceStore): Route {
  const parts = url.pathname
    .split('/')
    .filter((p) => p !== '')
    .map(decodeURIComponent);
  const [root, a, b, namespaceName] = parts;
  if (method === 'GET') {
    if (root === 'version' && parts.length === 1) return { type: 'discovery', body: versionInfo() };
    if (root === 'api' && parts.length === 1) return { type: 'discovery', body: coreVersions() };
    if (root === 'api' && a === 'v1' && parts.length === 2)
      return { type: 'discovery', body: coreResources(store.resources) };
    if (root === 'api' && a === 'v1' && b === 'namespaces' && parts.length <= 4) {
      const names = store.namespaces();
      if (namespaceName === undefined) return { type: 'discovery', body: namespaceList(names) };
      return {
        type: 'discovery',
        body: names.includes(namespaceName) ? namespace(namespaceName) : undefined,
      };
    }
    if (root === 'apis' && parts.length === 1) return { type: 'discovery', body: groupList(store.resources) };
    if (root === 'apis' && parts.length === 2)
      return { type: 'discovery', body: group(store.resources, a ?? '') };
    if (root === 'apis' && parts.length === 3) {
      return { type: 'discovery', body: resourceList(store.resources, a ?? '', b ?? '') };
    }
  }
  // The core group: `/api/v1/…` addresses what `/apis/<group>/<version>/…` does, one segment shorter.
  const core = root === 'api';
  const [groupName, version, c, d, e] = core ? ['', ...parts.slice(1)] : parts.slice(1);
  if ((root !== 'apis' && !core) || groupName === undefined || version === undefined || c === undefined)
    return { type: 'unknown' };
  const namespaced = c === 'namespaces' && d !== undefined && e !== undefined;
  const plural = namespaced ? e : c;
  const resource = store.find(groupName, version, plural);
  if (resource === undefined) return { type: 'unknown' };
  const skip = core ? 1 : 0;
  const rest = namespaced ? parts.slice(6 - skip) : parts.slice(4 - skip);
  if (rest.length > 2 || (namespaced && !resource.namespaced)) return { type: 'unknown' };
  const [name, subresource] = rest;
  const watch = ['1', 'true'].includes(url.searchParams.get('watch') ?? '');
  const verb = verbOf(method, name !== undefined, watch);
  if (verb === undefined) return { type: 'unknown' };
  return {
    type: 'resource',
    verb,
    resource,
    ...(namespaced ? { namespace: d } : {}),
    ...(name === undefined ? {} : { name }),
    ...(subresource === undefined ? {} : { subresource }),
  };
}

function verbOf(method: string, named: boolean, watch: boolean): string | undefined {
  switch (method) {
    case 'GET':
      return named ? 'get' : watch ? 'watch' : 'list';
    case 'POST':
      return named ? undefined : 'create';
    case 'PUT':
      return named ? 'update' : undefined;
    case 'PATCH':
      return named ? 'patch' : undefined;
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      return undefined;
  }
}
