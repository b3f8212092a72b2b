import { parseApplication } from '../../../lib/argocd/application.js';
import { parseApplicationSet } from '../../../lib/argocd/application-set.js';
import { parseGitRepository } from '../../../lib/flux/git-repository.js';
import {
  decideApplication,
  decideApplicationSet,
  decideGitRepository,
  type Verdict,
} from '../../../lib/matching/decide.js';
import type { FleetObject, PushToMatch } from '../../../lib/matching/match-index.js';
import { canonicalRepoKeys } from '../../../lib/matching/repo-url.js';
import type { ChangedFiles } from '../../../lib/webhook/push-event.js';

/** One decision, as both implementations are compared: `cluster/kind/namespace/name decision | reason | hydrate`. */
export type Decision = string;

/**
 * The straightforward matching the index replaced: every object of the fleet, every source, every path
 * item against every changed file (`decide.ts` and `manifest-paths.ts`, unchanged). Slow and obviously
 * right; the equivalence test holds the compiled index to it.
 */
export function referenceDecisions(
  objects: readonly FleetObject[],
  push: PushToMatch,
  changed: ChangedFiles,
): Decision[] {
  const keys = canonicalRepoKeys(
    push.repo.webUrl === undefined ? push.repo.urls : [...push.repo.urls, push.repo.webUrl],
  );
  const out: Decision[] = [];
  for (const { cluster, kind, raw } of objects) {
    let verdict: Verdict | undefined;
    let id: { namespace: string; name: string } | undefined;
    if (kind === 'Application') {
      const parsed = parseApplication(raw);
      if (!parsed.ok) continue;
      id = parsed.value;
      verdict = decideApplication(parsed.value, keys, push, changed);
    } else if (kind === 'ApplicationSet') {
      const parsed = parseApplicationSet(raw);
      if (!parsed.ok) continue;
      id = parsed.value;
      verdict = decideApplicationSet(parsed.value, keys, push, changed);
    } else {
      const parsed = parseGitRepository(raw);
      if (!parsed.ok || !keys.has(parsed.value.repoKey)) continue;
      id = parsed.value;
      verdict = decideGitRepository(parsed.value, push);
    }
    if (verdict) out.push(describe(cluster, kind, id, verdict));
  }
  return out.sort();
}

export function describe(
  cluster: string,
  kind: string,
  id: { namespace: string; name: string },
  verdict: Verdict,
): Decision {
  return `${cluster}/${kind}/${id.namespace}/${id.name} ${verdict.decision} | ${verdict.reason} | ${verdict.hydrate}`;
}
