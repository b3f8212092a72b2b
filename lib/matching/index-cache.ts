import { type IndexEntry, indexEntry, type ListedObject } from './index-entry.js';
import { createIndexStore, type IndexStore } from './index-store.js';
import type { MatchIndex } from './match-index.js';

export interface IndexUpdate {
  /** Objects parsed and compiled this time: new, changed (another `resourceVersion`), or without a uid. */
  readonly parsed: number;
  /** Unchanged objects whose entry was kept. */
  readonly reused: number;
  /** Objects gone since the last listing. */
  readonly dropped: number;
}

/**
 * Match indexes kept across warm invocations, one per cluster. Kubernetes bumps `resourceVersion` on every
 * change, so an object listed again with the same `uid` and `resourceVersion` is the same object: its
 * entry (with the `raw` first listed) is kept and only new or changed objects are parsed. Keep one cache in
 * module scope; it retains one parsed copy of each object, so index slim objects (fields matching and fan-out read).
 */
export interface MatchIndexCache {
  /** The index of this cluster's objects as just listed (the whole list, not a delta). */
  indexFor(cluster: string, objects: Iterable<ListedObject>): MatchIndex;
  /** What the last `indexFor` of this cluster did, for logs and benchmarks. */
  lastUpdate(cluster: string): IndexUpdate | undefined;
}

interface Cached {
  readonly resourceVersion: string;
  readonly entry: IndexEntry;
  seen: number;
}

interface ClusterState {
  readonly store: IndexStore;
  /** By kind, then `metadata.uid`: a uid string is looked up as listed, no key is built per object. */
  readonly byUid: Map<string, Map<string, Cached>>;
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

// The hot path of a warm invocation: one pass over the listing, two property reads and a map lookup per
// unchanged object; only new and changed objects are parsed.
function update(cluster: string, state: ClusterState, objects: Iterable<ListedObject>): IndexUpdate {
  const generation = ++state.generation;
  let parsed = 0;
  let reused = 0;
  let dropped = 0;
  for (const entry of state.uncached) state.store.remove(entry);
  state.uncached = [];
  let lastKind: string | undefined;
  let lastMap: Map<string, Cached> | undefined;
  for (const object of objects) {
    const metadata = typeof object.raw === 'object' ? (object.raw as RawMeta)?.metadata : undefined;
    const uid = metadata?.uid;
    const resourceVersion = metadata?.resourceVersion;
    const keyed =
      typeof uid === 'string' && uid !== '' && typeof resourceVersion === 'string' && resourceVersion !== '';
    // Listings come one kind at a time: look the kind's map up once per run of objects.
    if (keyed && object.kind !== lastKind) {
      lastKind = object.kind;
      lastMap = kindMap(state, lastKind);
    }
    const byUid = keyed ? lastMap : undefined;
    const cached = byUid?.get(uid as string);
    if (cached && cached.seen !== generation && cached.resourceVersion === resourceVersion) {
      // Same uid and resourceVersion: the kept `raw` is this object as it was first listed, byte for byte.
      cached.seen = generation;
      reused++;
      continue;
    }
    const entry = indexEntry(cluster, object);
    parsed++;
    state.store.add(entry);
    if (byUid === undefined || cached?.seen === generation) {
      state.uncached.push(entry); // no identity, or a uid listed twice: never trust it for next time
      continue;
    }
    if (cached) state.store.remove(cached.entry);
    byUid.set(uid as string, { resourceVersion: resourceVersion as string, entry, seen: generation });
  }
  for (const byUid of state.byUid.values()) {
    for (const [uid, cached] of byUid) {
      if (cached.seen === generation) continue;
      state.store.remove(cached.entry);
      byUid.delete(uid);
      dropped++;
    }
  }
  return { parsed, reused, dropped };
}

export function createMatchIndexCache(): MatchIndexCache {
  const clusters = new Map<string, ClusterState>();
  return {
    indexFor(cluster, objects) {
      let state = clusters.get(cluster);
      if (!state) {
        state = { store: createIndexStore(), byUid: new Map(), uncached: [], generation: 0 };
        clusters.set(cluster, state);
      }
      state.update = update(cluster, state, objects);
      return state.store.index;
    },
    lastUpdate: (cluster) => clusters.get(cluster)?.update,
  };
}
