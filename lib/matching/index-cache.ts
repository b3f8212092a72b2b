import {
  decidesAsBefore,
  type IndexEntry,
  indexEntry,
  type ListedObject,
  takeNewStatus,
} from './index-entry.js';
import { createIndexStore, type IndexStore } from './index-store.js';
import type { MatchIndex } from './match-index.js';

export interface IndexUpdate {
  /** Objects parsed and compiled this time: new, changed (another `resourceVersion`), or without a uid. */
  readonly parsed: number;
  /** Unchanged objects whose entry was kept. */
  readonly reused: number;
  /** Objects gone since the last listing. */
  readonly dropped: number;
  /** Changed objects whose parse was kept: only what the parser does not read changed (their status). */
  readonly statusOnly: number;
}

/**
 * Match indexes kept across warm invocations, one per cluster. Kubernetes bumps `resourceVersion` on every
 * change, so an object listed again with the same `uid` and `resourceVersion` is the same object: its
 * entry (with the `raw` first listed) is kept and only new or changed objects are parsed. Keep one cache in
 * module scope; it retains one parsed copy of each object, so index slim objects (fields matching and fan-out read).
 * Clusters not indexed lately are forgotten (least recently indexed first) once the cache holds more than
 * `limits.objects` objects or `limits.clusters` clusters; the cluster just indexed is always kept.
 */
export interface MatchIndexCache {
  /** The index of this cluster's objects as just listed (the whole list, not a delta). */
  indexFor(cluster: string, objects: Iterable<ListedObject>): MatchIndex;
  /**
   * The cluster's index as last listed (objects may have changed since), without a listing: what the
   * cluster probably runs, e.g. to start reads a push will want before its listing answers.
   */
  last(cluster: string): MatchIndex | undefined;
  /** What the last `indexFor` of this cluster did, for logs and benchmarks. */
  lastUpdate(cluster: string): IndexUpdate | undefined;
  /** The clusters kept, least recently indexed first. */
  clusters(): string[];
}

/**
 * A fan-out container works on one cluster per invocation and may see every cluster of the fleet over its
 * life; without a bound it keeps every cluster's index. An indexed Application holds ~3.2 KB of heap (its
 * `slimForRefresh` raw, the parsed value, compiled rules and index slots; measured with issue 11's realistic
 * 19 KB objects), so 5,000 objects are ~16 MB. At 20,000 (~64 MB) a container that had served every cluster
 * of a 20,000-app/50-cluster fleet peaked at 315 MB RSS (`npm run bench`, the 256 MB Lambda heap): beside
 * the ~70 MB runtime, a listing's pages and the HTTP traffic of an invocation there is no room for more. A
 * cluster evicted is indexed cold again on its next push (~17 µs per app: 7 ms for a 400-app cluster), so
 * the bound keeps a 5,000-app hub whole, or a dozen of a 20,000-app fleet's ~400-app clusters.
 */
export const INDEX_CACHE_MAX_OBJECTS = 5_000;
/** Beyond the objects, each kept cluster holds its maps and buckets; 64 covers the fleets of issue 11. */
export const INDEX_CACHE_MAX_CLUSTERS = 64;

interface Cached {
  readonly kind: string;
  readonly uid: string;
  /** Moves on in place when only the status changed (the entry is kept, with the new object). */
  resourceVersion: string;
  readonly entry: IndexEntry;
  seen: number;
  /** Where it stood in the last listing (`ClusterState.order`). */
  position: number;
}

interface ClusterState {
  readonly store: IndexStore;
  /** By kind, then `metadata.uid`; read only when the listing is out of step with `order`. */
  readonly byUid: Map<string, Map<string, Cached>>;
  /** The keyed objects in the order of the last listing: a relisting is compared with it in step. */
  order: Cached[];
  /** Objects without uid or resourceVersion (not from a real API server) are parsed every time. */
  uncached: IndexEntry[];
  generation: number;
  update?: IndexUpdate;
}

type RawMeta = { readonly metadata?: { readonly uid?: unknown; readonly resourceVersion?: unknown } } | null;

function kindMap(state: ClusterState, kind: string): Map<string, Cached> {
  let map = state.byUid.get(kind);
  if (!map) {
    map = new Map();
    state.byUid.set(kind, map);
  }
  return map;
}

/**
 * The hot path of a warm invocation. An API server lists a collection in key order (namespace, name), so a
 * relisting is the last listing with a few objects changed, added or gone: each object is compared with the
 * one the last listing had at the same place (two string comparisons, no hashing of the freshly parsed
 * uid, no allocation); only when they differ is the uid looked up, and the comparison goes on in step from
 * where that object stood. Only new and changed objects are parsed.
 */
function update(cluster: string, state: ClusterState, objects: Iterable<ListedObject>): IndexUpdate {
  const generation = ++state.generation;
  const previous = state.order;
  let parsed = 0;
  let statusOnly = 0;
  for (const entry of state.uncached) state.store.remove(entry);
  state.uncached = [];
  // `order` stays `previous` while the listing is in step with it (then nothing can have been dropped);
  // a copy is made at the first difference.
  let order: Cached[] | undefined;
  const listed = Array.isArray(objects) ? (objects as readonly ListedObject[]) : [...objects];
  // The common case first: the same object, unchanged, at the same place (its position stays right).
  const inStep = Math.min(listed.length, previous.length);
  let start = 0;
  for (; start < inStep; start++) {
    const object = listed[start] as ListedObject;
    const cached = previous[start] as Cached;
    const metadata = typeof object.raw === 'object' ? (object.raw as RawMeta)?.metadata : undefined;
    if (
      metadata?.resourceVersion !== cached.resourceVersion ||
      metadata?.uid !== cached.uid ||
      object.kind !== cached.kind
    ) {
      break;
    }
    cached.seen = generation;
  }
  let reused = start;
  let next = start;
  let cursor = start;
  for (let i = start; i < listed.length; i++) {
    const object = listed[i] as ListedObject;
    const metadata = typeof object.raw === 'object' ? (object.raw as RawMeta)?.metadata : undefined;
    const uid = metadata?.uid;
    const resourceVersion = metadata?.resourceVersion;
    if (
      typeof uid !== 'string' ||
      uid === '' ||
      typeof resourceVersion !== 'string' ||
      resourceVersion === ''
    ) {
      const entry = indexEntry(cluster, object);
      parsed++;
      state.store.add(entry);
      state.uncached.push(entry);
      continue;
    }
    let cached = previous[cursor];
    if (cached === undefined || cached.uid !== uid || cached.kind !== object.kind) {
      cached = kindMap(state, object.kind).get(uid);
      if (cached !== undefined && cached.seen !== generation) cursor = cached.position;
    }
    const unseen = cached !== undefined && cached.seen !== generation;
    // Same uid and resourceVersion: the kept `raw` is this object as it was first listed, byte for byte.
    const same = unseen && cached?.resourceVersion === resourceVersion;
    // Or only its status changed: the entry stays where it is in the store, with the new object.
    if (cached !== undefined && unseen && (same || decidesAsBefore(cached.entry, object))) {
      if (same) reused++;
      else {
        takeNewStatus(cached.entry, object);
        cached.resourceVersion = resourceVersion;
        statusOnly++;
      }
      cached.seen = generation;
      cursor++;
      if (order === undefined && cached.position !== next) order = previous.slice(0, next);
      cached.position = next++;
      order?.push(cached);
      continue;
    }
    const entry = indexEntry(cluster, object);
    parsed++;
    state.store.add(entry);
    if (cached?.seen === generation) {
      state.uncached.push(entry); // a uid listed twice: never trust it for next time
      continue;
    }
    if (cached) {
      state.store.remove(cached.entry);
      cached.seen = generation; // replaced, not dropped
      cursor++;
    }
    const fresh = { kind: object.kind, uid, resourceVersion, entry, seen: generation, position: next++ };
    kindMap(state, object.kind).set(uid, fresh);
    order ??= previous.slice(0, fresh.position);
    order.push(fresh);
  }
  if (order === undefined && next === previous.length) return { parsed, reused, dropped: 0, statusOnly };
  state.order = order ?? previous.slice(0, next);
  return { parsed, reused, dropped: dropUnseen(state, previous, generation), statusOnly };
}

/** Objects of the last listing not met in this one. */
function dropUnseen(state: ClusterState, previous: readonly Cached[], generation: number): number {
  let dropped = 0;
  for (const cached of previous) {
    if (cached.seen === generation) continue;
    state.store.remove(cached.entry);
    state.byUid.get(cached.kind)?.delete(cached.uid);
    dropped++;
  }
  return dropped;
}

export function createMatchIndexCache(
  limits: { readonly objects: number; readonly clusters: number } = {
    objects: INDEX_CACHE_MAX_OBJECTS,
    clusters: INDEX_CACHE_MAX_CLUSTERS,
  },
): MatchIndexCache {
  // In order of last use: a Map iterates in insertion order, and a cluster is reinserted when indexed.
  const clusters = new Map<string, ClusterState>();
  const size = (state: ClusterState) => state.order.length + state.uncached.length;
  let objects = 0;
  return {
    indexFor(cluster, listed) {
      let state = clusters.get(cluster);
      if (state) {
        clusters.delete(cluster);
        objects -= size(state);
      } else state = { store: createIndexStore(), byUid: new Map(), order: [], uncached: [], generation: 0 };
      clusters.set(cluster, state);
      state.update = update(cluster, state, listed);
      objects += size(state);
      for (const [name, kept] of clusters) {
        if (name === cluster || (objects <= limits.objects && clusters.size <= limits.clusters)) break;
        clusters.delete(name);
        objects -= size(kept);
      }
      return state.store.index;
    },
    last: (cluster) => clusters.get(cluster)?.store.index,
    lastUpdate: (cluster) => clusters.get(cluster)?.update,
    clusters: () => [...clusters.keys()],
  };
}
