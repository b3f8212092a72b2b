import type { RegistryImage } from '../registry/registry-event.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;

/**
 * What Argo CD reports as the revision of an app at a registry push, besides the rollout's key (the digest's
 * hex): `sha256:<hex>` for an OCI source, the tag (the chart version) for a Helm OCI source; every tag the
 * digest arrived under (`refs`). Undefined for a Git rollout, whose revisions are commits. Known from the
 * rollout's repository URL (`oci://...`).
 */
export function registryAliases(
  repoUrl: string | undefined,
  sha: string,
  tags: readonly string[],
): ReadonlySet<string> | undefined {
  if (repoUrl === undefined || !repoUrl.startsWith('oci://')) return undefined;
  return new Set([`sha256:${sha}`, ...tags.filter((tag) => tag !== '')]);
}

export function imageAliases(image: RegistryImage): ReadonlySet<string> {
  return new Set([image.digest, image.tag]);
}

/**
 * The live Application with every revision in `aliases` written as `sha`, so the track (and the check before
 * a refresh) read a registry rollout's apps exactly as a Git one's: `status.sync.revision(s)` and the
 * operation's revisions. A copy of the parts it changes; the object read from the cluster is left alone.
 */
export function withRolloutRevision(raw: unknown, sha: string, aliases: ReadonlySet<string>): unknown {
  const object = obj(raw);
  const status = obj(object?.status);
  if (object === undefined || status === undefined) return raw;
  const rename = (v: unknown) => (typeof v === 'string' && aliases.has(v) ? sha : v);
  const revisions = (holder: Obj | undefined): Obj | undefined => {
    if (holder === undefined) return undefined;
    const copy: Obj = { ...holder };
    if ('revision' in holder) copy.revision = rename(holder.revision);
    if (Array.isArray(holder.revisions)) copy.revisions = holder.revisions.map(rename);
    return copy;
  };
  const op = obj(status.operationState);
  const operation = obj(op?.operation);
  const operationState =
    op === undefined
      ? undefined
      : {
          ...op,
          ...(op.syncResult === undefined ? {} : { syncResult: revisions(obj(op.syncResult)) }),
          ...(operation === undefined
            ? {}
            : {
                operation: {
                  ...operation,
                  ...(operation.sync === undefined ? {} : { sync: revisions(obj(operation.sync)) }),
                },
              }),
        };
  return {
    ...object,
    status: {
      ...status,
      ...(status.sync === undefined ? {} : { sync: revisions(obj(status.sync)) }),
      ...(operationState === undefined ? {} : { operationState }),
    },
  };
}
