import type { ServerResponse } from 'node:http';
import type { KubeResource } from '../../lib/kubernetes/resources.js';
import { kubeStatus } from './kube-status.js';
import type { ResourceStore, StoredObject, StoreEvent } from './resource-store.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';

/**
 * Streams watch events as newline-delimited JSON. Without a resourceVersion (or "0") the current
 * objects come first as ADDED; with one, the retained events after it are replayed, or a 410 ERROR
 * event says it is too old. Ends after `timeoutSeconds`, or when the server closes.
 */
export function serveWatch(
  store: ResourceStore,
  resource: KubeResource,
  namespace: string | undefined,
  query: URLSearchParams,
  response: ServerResponse,
): () => void {
  const labels = parseLabelSelector(query.get('labelSelector'));
  const fields = parseFieldSelector(query.get('fieldSelector'));
  const wanted = (object: StoredObject) =>
    (namespace === undefined || object.metadata.namespace === namespace) &&
    labels(object.metadata.labels) &&
    fields(object);
  const send = (type: string, object: unknown) => response.write(`${JSON.stringify({ type, object })}\n`);

  response.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
  response.flushHeaders();
  const since = query.get('resourceVersion');
  if (since === null || since === '' || since === '0') {
    for (const object of store.list(resource, namespace)) if (wanted(object)) send('ADDED', object);
  } else {
    const replay = /^\d+$/.test(since) ? store.eventsSince(Number(since)) : undefined;
    if (replay === undefined) {
      send('ERROR', kubeStatus(410, `too old resource version: ${since} (${store.oldestResumableVersion})`));
      response.end();
      return () => undefined;
    }
    for (const event of replay)
      if (relevant(event, resource) && wanted(event.object)) send(event.type, event.object);
  }

  const unsubscribe = store.subscribe((event) => {
    if (relevant(event, resource) && wanted(event.object)) send(event.type, event.object);
  });
  const timeoutSeconds = Number(query.get('timeoutSeconds') ?? '0');
  const timer = timeoutSeconds > 0 ? setTimeout(() => stop(), timeoutSeconds * 1000) : undefined;
  const stop = () => {
    unsubscribe();
    if (timer !== undefined) clearTimeout(timer);
    if (!response.writableEnded) response.end();
  };
  response.on('close', stop);
  return stop;
}

function relevant(event: StoreEvent, resource: KubeResource): boolean {
  return event.resource.group === resource.group && event.resource.plural === resource.plural;
}
