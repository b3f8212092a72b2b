import { describe, expect, it } from 'vitest';
import { createMatchIndexCache } from '../../../lib/matching/index-cache.js';
import { buildMatchIndex, type FleetObject, type MatchResult } from '../../../lib/matching/match-index.js';
import { random, randomObject, randomPush } from './random-fleet.js';
import { type Decision, describe as describeDecision, referenceDecisions } from './reference-match.js';

const FLEETS = 150;
const PUSHES = 12;
const CLUSTERS = ['hub', 'spoke'];

const idOf = (object: FleetObject): number =>
  Number(
    String((object.raw as { metadata: { uid: string } }).metadata.uid)
      .split('-')
      .pop(),
  );
const decisionsOf = (result: MatchResult): Decision[] =>
  result.matches.map((m) => describeDecision(m.target.cluster, m.target.kind, m.target, m)).sort();

/** The object after its controller wrote its status: a new resourceVersion, the same spec. */
function statusWritten(object: FleetObject, round: number): FleetObject {
  const raw = structuredClone(object.raw) as { metadata: Record<string, unknown>; status?: unknown };
  raw.metadata.resourceVersion = `${String(raw.metadata.resourceVersion)}-s${round}`;
  raw.status = { reconciledAt: `round ${round}` };
  return { ...object, raw };
}

function randomFleet(seed: number): FleetObject[] {
  const r = random(seed);
  return Array.from({ length: 10 + Math.floor(r.next() * 30) }, (_, n) =>
    randomObject(r, r.pick(CLUSTERS), n),
  );
}

describe('the compiled match index decides exactly as the straightforward matching', () => {
  it.each(Array.from({ length: FLEETS }, (_, i) => [i + 1]))('fleet with seed %i', (seed) => {
    const fleet = randomFleet(seed);
    const index = buildMatchIndex(fleet);
    const r = random(seed * 7919);
    for (let p = 0; p < PUSHES; p++) {
      const { push, changed } = randomPush(r);
      const expected = referenceDecisions(fleet, push, changed);
      expect(decisionsOf(index.match(push, changed)), JSON.stringify({ push, changed })).toEqual(expected);
    }
  });
});

describe('the incremental cache decides exactly as a fresh index after objects change, appear and go', () => {
  it.each(Array.from({ length: 40 }, (_, i) => [i + 1]))('fleet with seed %i', (seed) => {
    const r = random(seed * 104729);
    const cache = createMatchIndexCache();
    let fleet = randomFleet(seed);
    let next = fleet.length;
    for (let round = 0; round < 6; round++) {
      if (round > 0) {
        // Change some objects (a new resourceVersion), drop some, add some.
        fleet = fleet.flatMap((object): FleetObject[] => {
          if (r.chance(0.1)) return [];
          if (r.chance(0.15)) return [statusWritten(object, round)];
          if (!r.chance(0.2)) return [object];
          return [randomObject(r, object.cluster, idOf(object), round + 1)];
        });
        // New objects land anywhere in the listing, and now and then the listing comes in another order.
        for (let k = Math.floor(r.next() * 4); k > 0; k--)
          fleet.splice(
            Math.floor(r.next() * (fleet.length + 1)),
            0,
            randomObject(r, r.pick(CLUSTERS), next++),
          );
        if (r.chance(0.2)) fleet.reverse();
      }
      const indexes = CLUSTERS.map((c) =>
        cache.indexFor(
          c,
          fleet.filter((o) => o.cluster === c),
        ),
      );
      for (let p = 0; p < 4; p++) {
        const { push, changed } = randomPush(r);
        const cached = indexes.flatMap((index) => decisionsOf(index.match(push, changed))).sort();
        expect(cached).toEqual(referenceDecisions(fleet, push, changed));
        const fresh = buildMatchIndex(fleet).match(push, changed);
        const failures = (result: MatchResult) => result.failures.map((f) => JSON.stringify(f)).sort();
        expect(indexes.flatMap((index) => failures(index.match(push, changed))).sort()).toEqual(
          failures(fresh),
        );
      }
    }
  });
});
