import { ociSourceKey } from '../matching/oci-source.js';
import { canonicalRepoKey } from '../matching/repo-url.js';

/** Something the caller typed that is not a repository: a usage error (exit 2). */
export class RepoArgumentError extends Error {}

const URL_FORM = /^[a-z][a-z0-9+.-]*:\/\/|^[^/]*@|^[^/]*:|^[^/]*\./i;

/**
 * The value `GET /rollouts?repo=` and `POST /freezes` filter on, the repository's full name as its provider
 * names it (`owner/name`, `group/sub/project`; Azure DevOps `project/repo`), from `owner/name` as typed or
 * any URL form (https, ssh, scp-style, with `.git`), or an image repository as `oci://host/path`. The URL's own spelling of each segment is kept: the
 * API compares the name case-sensitively.
 */
export function repoFilterOf(input: string): string {
  const text = input.trim();
  // An image repository (registry rollouts name it `host/path`, lower-case): `oci://host/path`.
  const image = ociSourceKey(text, undefined);
  if (image !== undefined) return image;
  const key = canonicalRepoKey(text);
  if (key === undefined)
    throw new RepoArgumentError(`--repo ${text}: not owner/name, a Git repository URL or oci://host/path`);
  if (!URL_FORM.test(text)) return text.replace(/\/+$/, '').replace(/\.git$/, '');
  const segments = key.split('/').slice(1);
  const git = segments.indexOf('_git');
  const name = git > 0 ? [segments[git - 1] ?? '', ...segments.slice(git + 1)] : segments;
  const spelt = text
    .replace(/\/+$/, '')
    .replace(/\.git$/i, '')
    .split(/[/:]/)
    .reverse();
  return name.map((segment) => spelt.find((s) => s.toLowerCase() === segment) ?? segment).join('/');
}
