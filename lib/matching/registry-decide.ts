import type { Application } from '../argocd/application.js';
import { imageKey, type RegistryImage } from '../registry/registry-event.js';
import { sourceLabel, type Verdict, withIgnoredSources } from './decide.js';
import { parseConstraints, satisfies } from './semver.js';
import { compareVersions, parseVersion } from './semver-version.js';

/** Whether a source's `targetRevision` follows an image push, and why (the decision's reason). */
export type TagVerdict =
  | { readonly follows: true; readonly why: string }
  | { readonly follows: false; readonly why: string };

const DIGEST_REVISION = /^sha256:[0-9a-f]{64}$/i;

/**
 * An OCI `targetRevision` against a pushed tag and digest: a digest matches only that digest; otherwise the
 * exact tag (case-sensitive), or a semver constraint as for Git tags (Masterminds, a leading `v` coerced),
 * which a tag that is not a version never satisfies. An empty revision follows `latest`, the OCI default.
 * Every check is a linear scan (the constraint parser reads token by token, without backtracking).
 */
export function tagVerdict(targetRevision: string, image: RegistryImage): TagVerdict {
  const target = targetRevision.trim();
  if (DIGEST_REVISION.test(target)) {
    return target.toLowerCase() === image.digest
      ? { follows: true, why: 'pins the pushed digest' }
      : { follows: false, why: 'pins another digest' };
  }
  const tag = target === '' ? 'latest' : target;
  if (tag === image.tag) return { follows: true, why: `follows tag ${image.tag}` };
  const constraints = parseConstraints(tag);
  if (constraints === undefined) return { follows: false, why: `names tag '${tag}', not ${image.tag}` };
  const version = parseVersion(image.tag);
  if (version === undefined) {
    return { follows: false, why: `is the constraint '${tag}' and tag ${image.tag} is not a version` };
  }
  return satisfies(constraints, version)
    ? { follows: true, why: `'${tag}' is satisfied by tag ${image.tag}` }
    : { follows: false, why: `'${tag}' is not satisfied by tag ${image.tag}` };
}

/**
 * An Application against an image push: every source on the pushed repository (OCI or Helm OCI, each of a
 * multi-source app) is checked; the app is refreshed once if any follows the tag. Undefined when no source
 * pulls from that repository. No path filter applies: a new image changes what every path renders.
 */
export function decideImageApplication(
  app: Application,
  image: RegistryImage,
  live?: unknown,
): Verdict | undefined {
  const key = imageKey(image);
  let miss: Verdict | undefined;
  for (const [i, source] of app.sources.entries()) {
    if (source.imageKey !== key) continue;
    const label = sourceLabel(app, source, i);
    let verdict = tagVerdict(source.targetRevision, image);
    if (verdict.follows && source.chart !== undefined) {
      verdict = laterChart(source.targetRevision, liveRevision(live, source.position), image) ?? verdict;
    }
    const reason = `${label} targetRevision ${verdict.why}`;
    if (verdict.follows) return withIgnoredSources(app, { decision: 'refreshed', reason, hydrate: false });
    miss ??= { decision: 'revision-miss', reason, hydrate: false };
  }
  return withIgnoredSources(app, miss);
}

type Obj = Readonly<Record<string, unknown>>;
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** What Argo CD last compared a source at: `status.sync.revisions[position]` (multi-source) or `revision`. */
function liveRevision(live: unknown, position: number | undefined): string | undefined {
  const sync = obj(obj(obj(live).status).sync);
  const value =
    position === undefined
      ? sync.revision
      : Array.isArray(sync.revisions)
        ? sync.revisions[position]
        : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * A Helm OCI source reports its chart version: when a constraint already resolved to a later version than the
 * pushed tag (1.3.5 pushed while the app runs 1.4.0 under `^1.0.0`), the push moves nothing and is a miss.
 * An OCI source reports a digest, which names no version: it is refreshed (and may end `timeout`).
 */
function laterChart(
  targetRevision: string,
  at: string | undefined,
  image: RegistryImage,
): TagVerdict | undefined {
  const constraints = parseConstraints(targetRevision.trim());
  const running = at === undefined ? undefined : parseVersion(at);
  const pushed = parseVersion(image.tag);
  if (constraints === undefined || running === undefined || pushed === undefined) return undefined;
  if (!satisfies(constraints, running) || compareVersions(running, pushed) <= 0) return undefined;
  return {
    follows: false,
    why: `'${targetRevision.trim()}' runs ${at} already, later than tag ${image.tag}`,
  };
}
