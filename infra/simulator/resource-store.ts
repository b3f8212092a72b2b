import { randomUUID } from 'node:crypto';
import { type KubeResource, resourceName } from '../../lib/kubernetes/resources.js';
import { KubeStatusError } from './kube-status.js';

/** A stored object: plain JSON, replaced (never mutated in place) on every write. */
export type StoredObject = {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    generation?: number;
    uid?: string;
    creationTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [field: string]: unknown;
  };
  [field: string]: unknown;
};

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  readonly type: WatchEventType;
  readonly resource: KubeResource;
  readonly object: StoredObject;
  readonly resourceVersion: number;
}

const HISTORY = 20_000;

/**
 * An event the history keeps, with its object as JSON text: a text is off the JS heap, and 20,000 retained
 * versions of ~20 KB Applications per cluster, as objects, made marking them most of the simulator's CPU.
 */
interface RetainedEvent {
  readonly type: WatchEventType;
  readonly resource: KubeResource;
  readonly text: Buffer;
  readonly resourceVersion: number;
}

/** One cluster's objects, with a cluster-wide resourceVersion counter and change events (for watches). */
export class ResourceStore {
  private readonly objects = new Map<string, Map<string, StoredObject>>();
  /** Each bucket's keys in listing order, kept until a key comes or goes (a replace keeps its place). */
  private readonly order = new Map<string, string[]>();
  /** The JSON text of each stored version, made when it is written, dropped when it is replaced or deleted. */
  private readonly texts = new WeakMap<StoredObject, Buffer>();
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  /** The retained events are `history[historyStart…]`: trimming moves the start, compaction is amortised. */
  private readonly history: RetainedEvent[] = [];
  private historyStart = 0;
  private revision = 1;

  constructor(readonly resources: readonly KubeResource[]) {
    for (const resource of resources) this.objects.set(resourceName(resource), new Map());
  }

  get resourceVersion(): string {
    return String(this.revision);
  }

  /** The oldest resourceVersion a watch may resume from. */
  get oldestResumableVersion(): number {
    return (this.history[this.historyStart]?.resourceVersion ?? this.revision + 1) - 1;
  }

  /** Every namespace some object lives in. */
  namespaces(): string[] {
    const names = new Set<string>();
    for (const bucket of this.objects.values()) {
      for (const object of bucket.values())
        if (object.metadata.namespace !== undefined) names.add(object.metadata.namespace);
    }
    return [...names].sort();
  }

  find(group: string, version: string, plural: string): KubeResource | undefined {
    return this.resources.find((r) => r.group === group && r.version === version && r.plural === plural);
  }

  list(resource: KubeResource, namespace?: string): StoredObject[] {
    const bucket = this.bucket(resource);
    const name = resourceName(resource);
    let keys = this.order.get(name);
    if (keys === undefined) {
      keys = [...bucket.entries()]
        .map(([id, object]) => ({ id, sortKey: keyOf(object) }))
        .sort((a, b) => a.sortKey.localeCompare(b.sortKey))
        .map((entry) => entry.id);
      this.order.set(name, keys);
    }
    const all = keys.map((id) => bucket.get(id) as StoredObject);
    return namespace === undefined ? all : all.filter((o) => o.metadata.namespace === namespace);
  }

  /**
   * The JSON text of an object: for the version the store holds, the text made when it was written (the
   * history keeps it too), so listing a page of large objects joins texts instead of serialising each again.
   * Stored objects are never mutated in place, so a text cannot go stale; any other object is serialised.
   */
  json(object: StoredObject): Buffer {
    return this.texts.get(object) ?? Buffer.from(JSON.stringify(object));
  }

  get(resource: KubeResource, namespace: string | undefined, name: string): StoredObject | undefined {
    return this.bucket(resource).get(key(resource, namespace, name));
  }

  require(resource: KubeResource, namespace: string | undefined, name: string): StoredObject {
    const object = this.get(resource, namespace, name);
    if (object === undefined) {
      throw new KubeStatusError(404, `${resourceName(resource)} "${name}" not found`, {
        details: { name, group: resource.group, kind: resource.plural },
      });
    }
    return object;
  }

  create(resource: KubeResource, input: StoredObject): StoredObject {
    const namespace = resource.namespaced ? (input.metadata.namespace ?? 'default') : undefined;
    const id = key(resource, namespace, input.metadata.name);
    if (this.bucket(resource).has(id)) {
      throw new KubeStatusError(409, `${resourceName(resource)} "${input.metadata.name}" already exists`, {
        reason: 'AlreadyExists',
        details: { name: input.metadata.name, group: resource.group, kind: resource.plural },
      });
    }
    const object = clone(input);
    object.apiVersion = apiVersionOf(resource);
    object.kind = resource.kind;
    object.metadata = {
      ...object.metadata,
      ...(namespace === undefined ? {} : { namespace }),
      uid: randomUUID(),
      generation: 1,
      creationTimestamp:
        object.metadata.creationTimestamp ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    };
    if (!resource.namespaced) delete object.metadata.namespace;
    return this.write('ADDED', resource, id, object);
  }

  /** Replaces an object; with `expectedVersion`, a different stored version is a 409 Conflict. */
  replace(resource: KubeResource, input: StoredObject, expectedVersion?: string): StoredObject {
    return this.replaceOwned(resource, clone(input), expectedVersion);
  }

  /** `replace` of an object nothing else holds (it is stored as it is). */
  private replaceOwned(resource: KubeResource, object: StoredObject, expectedVersion?: string): StoredObject {
    const current = this.require(resource, object.metadata.namespace, object.metadata.name);
    if (
      expectedVersion !== undefined &&
      expectedVersion !== '' &&
      expectedVersion !== current.metadata.resourceVersion
    ) {
      throw new KubeStatusError(
        409,
        `Operation cannot be fulfilled on ${resourceName(resource)} "${current.metadata.name}": the object has been modified; please apply your changes to the latest version and try again`,
        {
          reason: 'Conflict',
          details: { name: current.metadata.name, group: resource.group, kind: resource.plural },
        },
      );
    }
    object.apiVersion = apiVersionOf(resource);
    object.kind = resource.kind;
    const specChanged = JSON.stringify(object.spec) !== JSON.stringify(current.spec);
    object.metadata = {
      ...object.metadata,
      uid: current.metadata.uid,
      creationTimestamp: current.metadata.creationTimestamp,
      generation: (current.metadata.generation ?? 1) + (specChanged ? 1 : 0),
    } as StoredObject['metadata'];
    if (current.metadata.namespace !== undefined) object.metadata.namespace = current.metadata.namespace;
    return this.write(
      'MODIFIED',
      resource,
      key(resource, current.metadata.namespace, current.metadata.name),
      object,
    );
  }

  /** Read-modify-write in one step (nothing else runs in between): what controllers use. */
  update(
    resource: KubeResource,
    namespace: string | undefined,
    name: string,
    change: (draft: StoredObject) => void,
  ): StoredObject {
    const draft = clone(this.require(resource, namespace, name));
    change(draft);
    // The draft is this store's own copy already: stored as it is, not copied a second time.
    return this.replaceOwned(resource, draft);
  }

  delete(resource: KubeResource, namespace: string | undefined, name: string): StoredObject {
    const current = this.require(resource, namespace, name);
    const id = key(resource, current.metadata.namespace, name);
    this.bucket(resource).delete(id);
    this.order.delete(resourceName(resource));
    this.texts.delete(current);
    this.revision++;
    const object = { ...current, metadata: { ...current.metadata, resourceVersion: String(this.revision) } };
    this.emit({ type: 'DELETED', resource, object, resourceVersion: this.revision });
    return object;
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Events after `resourceVersion` still held in the history (undefined when it is older than that). */
  eventsSince(resourceVersion: number): StoreEvent[] | undefined {
    if (resourceVersion < this.oldestResumableVersion) return undefined;
    const events: StoreEvent[] = [];
    for (let i = this.historyStart; i < this.history.length; i++) {
      const { text, ...event } = this.history[i] as RetainedEvent;
      if (event.resourceVersion > resourceVersion)
        events.push({ ...event, object: JSON.parse(text.toString()) as StoredObject });
    }
    return events;
  }

  private write(
    type: WatchEventType,
    resource: KubeResource,
    id: string,
    object: StoredObject,
  ): StoredObject {
    this.revision++;
    object.metadata.resourceVersion = String(this.revision);
    const bucket = this.bucket(resource);
    const previous = bucket.get(id);
    if (previous === undefined) this.order.delete(resourceName(resource));
    else this.texts.delete(previous);
    bucket.set(id, object);
    this.texts.set(object, Buffer.from(JSON.stringify(object)));
    this.emit({ type, resource, object, resourceVersion: this.revision });
    return object;
  }

  private emit(event: StoreEvent): void {
    const { object, ...retained } = event;
    this.history.push({ ...retained, text: this.json(object) });
    this.historyStart = Math.max(this.historyStart, this.history.length - HISTORY);
    if (this.historyStart >= HISTORY) {
      this.history.splice(0, this.historyStart);
      this.historyStart = 0;
    }
    for (const listener of this.listeners) listener(event);
  }

  private bucket(resource: KubeResource): Map<string, StoredObject> {
    const bucket = this.objects.get(resourceName(resource));
    if (bucket === undefined)
      throw new KubeStatusError(404, `the server could not find the requested resource`);
    return bucket;
  }
}

export function apiVersionOf(resource: KubeResource): string {
  return resource.group === '' ? resource.version : `${resource.group}/${resource.version}`;
}

/**
 * A deep copy of a stored object. Stored objects are JSON trees (parsed bodies, seeds, controller drafts), so
 * plain objects and arrays are copied directly, several times faster than `structuredClone`; anything else
 * in the tree (a Date, a Map) still goes through `structuredClone`.
 */
export function clone<T>(value: T): T {
  return copyTree(value) as T;
}

function copyTree(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyTree);
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return structuredClone(value);
  const copy: Record<string, unknown> = prototype === null ? Object.create(null) : {};
  for (const field of Object.keys(value)) {
    const copied = copyTree((value as Record<string, unknown>)[field]);
    // An own `__proto__` key (JSON.parse makes one) must stay a key, not become the prototype.
    if (field === '__proto__')
      Object.defineProperty(copy, field, {
        value: copied,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else copy[field] = copied;
  }
  return copy;
}

function key(resource: KubeResource, namespace: string | undefined, name: string): string {
  return resource.namespaced ? `${namespace ?? ''}/${name}` : name;
}

function keyOf(object: StoredObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}
