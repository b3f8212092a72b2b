import { DIGEST, type RegistryImage } from '../registry/registry-event.js';
import type { DeliveryMeta, NormalizedPush } from './delivery.js';
import {
  httpUrl,
  type JsonRecord,
  optionalRecord,
  optionalString,
  quoted,
  requireRecord,
  requireString,
  wrongType,
} from './payload-fields.js';
import { registryPush, requireImageTag, requireRepositoryPath } from './registry-push.js';

/** GitHub's event for a package published to GitHub Packages; only container packages are image pushes. */
export const GHCR_EVENT = 'package';

const OWNER = /^[a-z0-9](?:[a-z0-9-]{0,38})$/;

/** A `package` event that is not a container version being published: ignored (202), with why. */
export function ghcrIgnored(body: JsonRecord): string | undefined {
  const action = optionalString(body, 'action');
  if (action !== 'published') return `package ${quoted(action ?? 'unknown', 40)} is not a publish`;
  const type = optionalString(optionalRecord(body, 'package'), 'package_type')?.toLowerCase();
  if (type !== 'container') return `package type ${quoted(type ?? 'unknown', 40)} is not a container image`;
  return undefined;
}

/** A body GitHub sends for a `package` event (the push payloads have `ref` instead). */
export function isPackageEvent(body: JsonRecord): boolean {
  return body.ref === undefined && optionalRecord(body, 'package') !== undefined;
}

/**
 * A published container version on GHCR → a registry push (`ghcr.io/<owner>/<name>`, its tag and manifest
 * digest), planned and tracked as an ECR push is. A version published without a tag is ignored.
 */
export function normalizeGhcrPackage(body: JsonRecord, meta: DeliveryMeta): NormalizedPush {
  const ignored = ghcrIgnored(body);
  if (ignored !== undefined) return { kind: 'ignored', reason: ignored };
  const pkg = requireRecord(body, 'package');
  const name = requireRepositoryPath(
    requireString(pkg, 'name', 'package.name').toLowerCase(),
    'package.name',
    'a container package name',
  );
  const owner = (
    optionalString(pkg, 'namespace')?.split('/')[0] ??
    optionalString(optionalRecord(pkg, 'owner'), 'login') ??
    ''
  ).toLowerCase();
  if (!OWNER.test(owner)) throw wrongType('package.owner.login', 'a GitHub account name');
  const version = requireRecord(pkg, 'package_version', 'package.package_version');
  const tagged = optionalRecord(optionalRecord(version, 'container_metadata'), 'tag');
  const tag = optionalString(tagged, 'name') ?? '';
  // The manifest digest: the tag's, else the version's own (`version` is the digest on GHCR).
  const digest = [optionalString(tagged, 'digest'), optionalString(version, 'version')]
    .map((d) => d?.toLowerCase())
    .find((d) => d !== undefined && DIGEST.test(d));
  if (digest === undefined) throw wrongType('package.package_version.version', 'a sha256 digest');
  if (tag === '')
    return { kind: 'ignored', reason: `image ${quoted(`${owner}/${name}`, 80)} published without a tag` };
  const image: RegistryImage = {
    host: registryHost(optionalRecord(pkg, 'registry')),
    repository: `${owner}/${name}`,
    tag: requireImageTag(tag, 'package.package_version.container_metadata.tag.name'),
    digest,
  };
  return registryPush('github', image, meta, optionalString(optionalRecord(body, 'sender'), 'login'));
}

/** `ghcr.io`, or a GitHub Enterprise Server's container host (`containers.<host>`) as its registry names it. */
function registryHost(registry: JsonRecord | undefined): string {
  const url = httpUrl(optionalString(registry, 'url'));
  if (url === undefined) return 'ghcr.io';
  const host = new URL(url).hostname.toLowerCase();
  // Older payloads name a per-type template host (`container.pkg.github.com`): images live on ghcr.io.
  return host.endsWith('.pkg.github.com') ? 'ghcr.io' : host;
}
