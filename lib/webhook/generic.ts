import { canonicalRepoKey } from '../matching/repo-url.js';
import { unknownFiles } from './commit-files.js';
import type { DeliveryMeta, NormalizedPush } from './delivery.js';
import { parseRef } from './git-ref.js';
import { notBranchOrTag, pushOf, refChange } from './normalize-push.js';
import {
  firstLine,
  httpUrl,
  isZeroSha,
  optionalString,
  payloadObject,
  requireCommitSha,
  requireString,
  wrongType,
} from './payload-fields.js';
import type { WebhookProvider } from './provider-model.js';
import { type ChangedFiles, ZERO_SHA } from './push-event.js';

export const GENERIC_PROVIDER: WebhookProvider = {
  name: 'generic',
  signature: { kind: 'hmac-sha256', names: ['x-signature-256'], prefix: 'sha256=' },
  eventName: { fixed: 'push' },
  deliveryId: { header: ['x-delivery-id'], orBodyHash: true },
  otherEventsId: 'first',
  events: { push: ['push'] },
  normalize: normalizeGenericPush,
};

/** The generic endpoint's cap on listed files; a CI job with more should leave `files` out (fail open). */
export const GENERIC_MAX_FILES = 10_000;

/**
 * The generic body `{"repo": URL, "ref", "before"?, "after", "files"?: [...]}` (plus optional
 * `defaultBranch`, `author`, `message`) → a provider-neutral push. `ref` is a full ref, or a bare name
 * taken as a branch. No `files`: unknown (the compare API or fail open); `files: []`: known empty.
 */
export function normalizeGenericPush(body: unknown, meta: DeliveryMeta): NormalizedPush {
  const payload = payloadObject(body);
  const repoUrl = requireString(payload, 'repo');
  const key = canonicalRepoKey(repoUrl);
  if (key === undefined) throw wrongType('repo', 'a Git repository URL');
  const rawRef = requireString(payload, 'ref');
  const ref = rawRef.startsWith('refs/') ? rawRef : `refs/heads/${rawRef}`;
  const parsed = parseRef(ref);
  if (parsed === undefined) return notBranchOrTag(rawRef);
  const after = requireCommitSha(payload, 'after');
  const before =
    payload.before === undefined || payload.before === null ? ZERO_SHA : requireCommitSha(payload, 'before');
  const defaultBranch = optionalString(payload, 'defaultBranch');
  const webUrl = httpUrl(repoUrl) === undefined ? `https://${key}` : safeWebUrl(repoUrl);
  const repo = {
    fullName: key.slice(key.indexOf('/') + 1),
    webUrl,
    urls: [...new Set([webUrl, withoutCredentials(repoUrl)])],
    ...(defaultBranch === undefined ? {} : { defaultBranch }),
  };
  const change = refChange({ ref, before, after }, parsed, {
    created: isZeroSha(before) && payload.before !== undefined && payload.before !== null,
  });
  return pushOf('generic', meta, {
    repo,
    change,
    head: {
      author: { name: optionalString(payload, 'author') ?? 'unknown' },
      title: firstLine(optionalString(payload, 'message')),
    },
    // A CI job lists what it changed whatever the base: `created` does not make the list unknown.
    files: change.deleted ? { known: true, files: [] } : listedFiles(payload.files),
  });
}

function listedFiles(files: unknown): ChangedFiles {
  if (files === undefined || files === null) return unknownFiles('no-commit-list');
  if (!Array.isArray(files) || !files.every((f) => typeof f === 'string')) {
    throw wrongType('files', 'a list of paths');
  }
  if (files.length > GENERIC_MAX_FILES) return unknownFiles('truncated');
  return {
    known: true,
    files: [...new Set(files.map((f) => f.replace(/^\/+/, '')).filter((f) => f !== ''))],
  };
}

/** The URL as a web link: user info (a token, maybe), query, fragment and `.git` dropped. */
function safeWebUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, '').replace(/\.git$/i, '')}`;
}

/** ssh and scp-style URLs keep a plain user (`git@`) but lose a password; http(s) lose any user info. */
function withoutCredentials(url: string): string {
  if (httpUrl(url) !== undefined) return safeWebUrl(url);
  return url.trim().replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@:]*:[^/@]*@/i, '$1');
}
