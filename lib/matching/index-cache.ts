import { type IndexEntry, indexEntry, type ListedObject } from './index-entry.js';
import { createIndexStore, type IndexStore } from './index-store.js';
import type { MatchIndex } from './match-index.js';
import { isRecord } from './raw-object.js';

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
 * entry is kept and only new or changed objects are parsed. Keep one cache in module scope.
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
  readonly byUid: Map<string, Cached>;
  /** Objects without uid or resourceVersion (not from a real API server) are parsed every time. */
  uncached: IndexEntry[];
  generation: number;
  update?: IndexUpdate;
}

function identity(raw: unknown): { uid: string; resourceVersion: string } | undefined {
  const metadata = isRecord(raw) && isRecord(raw.metadata) ? raw.metadata : undefined;
  const uid = metadata?.uid;
  const resourceVersion = metadata?.resourceVersion;
  if (
    typeof uid !== 'string' ||
    typeof resourceVersion !== 'string' ||
    uid === '' ||
    resourceVersion === ''
  ) {
    return undefined;
  }
  return { uid, resourceVersion };
}

/** The kept entry now points at the object just listed, so the previous listing can be collected. */
function refreshRaw(entry: IndexEntry, raw: unknown): void {
  if (entry.parsed) (entry.object as { raw: unknown }).raw = raw;
}

function update(cluster: string, state: ClusterState, objects: Iterable<ListedObject>): IndexUpdate {
  const generation = ++state.generation;
  let parsed = 0;
  let reused = 0;
  let dropped = 0;
  for (const entry of state.uncached) state.store.remove(entry);
  state.uncached = [];
  for (const object of objects) {
    const id = identity(object.raw);
    const key = id && `${object.kind}/${id.uid}`;
    const cached = key === undefined ? undefined : state.byUid.get(key);
    if (cached && cached.seen !== generation && cached.resourceVersion === id?.resourceVersion) {
      cached.seen = generation;
      refreshRaw(cached.entry, object.raw);
      reused++;
      continue;
    }
    const entry = indexEntry(cluster, object);
    parsed++;
    state.store.add(entry);
    if (key === undefined || id === undefined || cached?.seen === generation) {
      state.uncached.push(entry); // no identity, or a uid listed twice: never trust it for next time
      continue;
    }
    if (cached) state.store.remove(cached.entry);
    state.byUid.set(key, { resourceVersion: id.resourceVersion, entry, seen: generation });
  }
  for (const [key, cached] of state.byUid) {
    if (cached.seen === generation) continue;
    state.store.remove(cached.entry);
    state.byUid.delete(key);
    dropped++;
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
