import { indexEntry } from './index-entry.js';
import type { FleetObject, MatchIndex } from './index-model.js';
import { createIndexStore } from './index-store.js';

export type {
  FleetObject,
  IndexedObject,
  MatchIndex,
  MatchResult,
  ObjectMatch,
  ParseFailure,
  PushToMatch,
} from './index-model.js';

/** Parse every object of the fleet once, compile its path rules and bucket it by canonical repository key. */
export function buildMatchIndex(objects: Iterable<FleetObject>): MatchIndex {
  const store = createIndexStore();
  for (const object of objects) store.add(indexEntry(object.cluster, object));
  return store.index;
}
