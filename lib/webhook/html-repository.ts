import {
  httpUrl,
  type JsonRecord,
  optionalString,
  requireString,
  uniqueStrings,
  wrongType,
} from './payload-fields.js';
import type { PushRepository } from './push-event.js';

/**
 * A GitHub-shaped `repository` (GitHub, Gitea, Forgejo, Gogs): `html_url` required, `full_name` and
 * `default_branch` when given, and every URL form in `urlKeys` (plus `extraUrls`) as a repository URL.
 */
export function htmlRepository(
  repository: JsonRecord,
  urlKeys: readonly string[],
  extraUrls: readonly (string | undefined)[] = [],
): PushRepository & { readonly webUrl: string } {
  const webUrl = httpUrl(requireString(repository, 'html_url', 'repository.html_url'));
  if (webUrl === undefined) throw wrongType('repository.html_url', 'an http(s) URL');
  const defaultBranch = optionalString(repository, 'default_branch');
  return {
    fullName: optionalString(repository, 'full_name') ?? new URL(webUrl).pathname.replace(/^\/+|\/+$/g, ''),
    webUrl,
    urls: uniqueStrings([webUrl, ...urlKeys.map((key) => optionalString(repository, key)), ...extraUrls]),
    ...(defaultBranch === undefined ? {} : { defaultBranch }),
  };
}
