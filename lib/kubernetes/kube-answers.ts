import type { ResponseContext } from '@kubernetes/client-node/dist/gen/http/http.js';
import type { Logger } from '../ports.js';
import type { KubeList, KubeObject } from './cluster-api.js';
import { KubernetesApiError } from './kube-error.js';
import { type KubeResource, resourceName } from './resources.js';

// What the cluster client makes of a 2xx answer's body: JSON by its Content-Type, then an object or a list
// whose items each have a name (the others are skipped, and said so).

/** As client-node's ObjectSerializer reads a body: JSON by its Content-Type, text as it is. */
export function parseBody(response: ResponseContext, text: string): unknown {
  const mediaType = response.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (mediaType === undefined) throw new Error('Cannot parse content. No Content-Type defined.');
  const [type = '', subtype = ''] = mediaType.split('/');
  if (type === 'text') return text;
  if (type === 'application' && subtype.split('+').includes('json')) return JSON.parse(text);
  throw new Error(`The mediaType ${mediaType} is not supported by ObjectSerializer.parse.`);
}

export function toObject(cluster: string, body: unknown): KubeObject {
  if (!isKubeObject(body)) {
    throw new KubernetesApiError(`cluster ${cluster}: the API server answered with something not an object`, {
      cluster,
      retryable: false,
    });
  }
  return body;
}

export function toList(
  body: unknown,
  options: { readonly cluster: string; readonly logger?: Logger },
  resource: KubeResource,
): KubeList {
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
