import type { ChangedPaths } from './changed-paths.js';
import { pathsReason, pushed, RANK, type Verdict } from './decide.js';
import type { PathsVerdict } from './manifest-paths.js';
import { type PushedRef, revisionMatches } from './revision.js';

/** One push's facts, computed once and shared by every object the push looks at. */
export interface PushFacts {
  readonly push: PushedRef;
  readonly keys: ReadonlySet<string>;
  readonly changed: ChangedPaths;
  /** Tells this push from the index's earlier ones (verdicts kept per group of apps are per push). */
  readonly serial: number;
  /** `revisionMatches` per distinct revision string: most of a repository's apps share a handful. */
  follows(revision: string): boolean;
  /** Verdicts are immutable and most apps of a push share one (`source follows branch main; ...`). */
  readonly verdicts: Map<string, Map<string, Verdict>>;
}

export function pushFacts(
  push: PushedRef,
  keys: ReadonlySet<string>,
  changed: ChangedPaths,
  serial = 0,
): PushFacts {
  const memo = new Map<string, boolean>();
  return {
    push,
    keys,
    changed,
    serial,
    follows(revision) {
      let follows = memo.get(revision);
      if (follows === undefined) {
        follows = revisionMatches(revision, push);
        memo.set(revision, follows);
      }
      return follows;
    },
    verdicts: new Map(),
  };
}

function shared(facts: PushFacts, label: string, key: string, make: () => Verdict): Verdict {
  let byKey = facts.verdicts.get(label);
  if (!byKey) {
    byKey = new Map();
    facts.verdicts.set(label, byKey);
  }
  let verdict = byKey.get(key);
  if (!verdict) {
    verdict = make();
    byKey.set(key, verdict);
  }
  return verdict;
}

export function revisionMiss(label: string, field: string, revision: string, facts: PushFacts): Verdict {
  return shared(facts, label, `revision ${revision}`, () => ({
    decision: 'revision-miss',
    reason: `${label} ${field} '${revision}' does not follow ${pushed(facts.push)}`,
    hydrate: false,
  }));
}

export function pathsVerdict(
  label: string,
  decision: PathsVerdict,
  filtered: boolean,
  dry: boolean,
  facts: PushFacts,
) {
  return shared(facts, label, filtered ? decision : 'unfiltered', () => ({
    decision,
    reason: pathsReason(decision, label, filtered, facts.push, facts.changed),
    hydrate: dry && decision !== 'paths-miss',
  }));
}

/** `best` of decide.ts without the intermediate list: the top verdict, hydrating if any part does. */
export function better(top: Verdict | undefined, next: Verdict): Verdict {
  if (!top) return next;
  const winner = RANK[next.decision] > RANK[top.decision] ? next : top;
  const hydrate = top.hydrate || next.hydrate;
  return winner.hydrate === hydrate ? winner : { ...winner, hydrate };
}
