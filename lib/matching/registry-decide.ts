import type { Application } from '../argocd/application.js';
import { imageKey, type RegistryImage } from '../registry/registry-event.js';
import { sourceLabel, type Verdict, withIgnoredSources } from './decide.js';
import { parseConstraints, satisfies } from './semver.js';
import { parseVersion } from './semver-version.js';

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
export function decideImageApplication(app: Application, image: RegistryImage): Verdict | undefined {
  const key = imageKey(image);
  let miss: Verdict | undefined;
  for (const [i, source] of app.sources.entries()) {
    if (source.imageKey !== key) continue;
    const label = sourceLabel(app, source, i);
    const verdict = tagVerdict(source.targetRevision, image);
    const reason = `${label} targetRevision ${verdict.why}`;
    if (verdict.follows) return withIgnoredSources(app, { decision: 'refreshed', reason, hydrate: false });
    miss ??= { decision: 'revision-miss', reason, hydrate: false };
  }
  return withIgnoredSources(app, miss);
}
