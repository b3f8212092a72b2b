import {
  ESO_GROUP,
  ESO_READ_VERSIONS,
  type ExternalSecretDoc,
  type SecretStoreDoc,
} from './external-secret.js';
import { parseExternalSecret } from './parse-external-secret.js';
import { parseSecretStore } from './parse-store.js';
import { arrayField, isRecord, metadataOf, type Rec } from './read-object.js';
import type { SecretCheck } from './secret-check.js';

/** One parsed YAML document of an app's manifests at a commit (from the Git reader). */
export interface ManifestDocument {
  readonly path: string;
  readonly doc: unknown;
}

export interface ExtractedManifests {
  readonly externalSecrets: readonly ExternalSecretDoc[];
  readonly stores: readonly SecretStoreDoc[];
  /** ESO objects that cannot be checked at all (no name, unread apiVersion, ClusterExternalSecret). */
  readonly problems: readonly SecretCheck[];
}

/**
 * Every ExternalSecret (`external-secrets.io/v1`, `v1beta1`) and SecretStore/ClusterSecretStore in the
 * documents. `defaultNamespace` is where Argo CD puts objects without one (the app's destination).
 */
export function extractFromManifests(
  documents: readonly ManifestDocument[],
  options: { defaultNamespace: string },
): ExtractedManifests {
  const externalSecrets: ExternalSecretDoc[] = [];
  const stores: SecretStoreDoc[] = [];
  const problems: SecretCheck[] = [];
  for (const { path, doc } of documents) {
    for (const object of flattenLists(doc)) {
      const esoVersion = esoVersionOf(object);
      if (esoVersion === undefined) continue;
      const kind = object.kind;
      const { name, namespace = options.defaultNamespace } = metadataOf(object);
      const read = (ESO_READ_VERSIONS as readonly string[]).includes(esoVersion);
      if (kind === 'ExternalSecret') {
        const id = `${namespace}/${name ?? '(unnamed)'}`;
        if (!read) {
          problems.push(
            problem(
              id,
              'apiVersion',
              'unsupported',
              `apiVersion ${ESO_GROUP}/${esoVersion} is not read (only v1 and v1beta1)`,
            ),
          );
        } else if (name === undefined) {
          problems.push(
            problem(id, 'metadata.name', 'error', `ExternalSecret in ${path} has no metadata.name`),
          );
        } else {
          externalSecrets.push(
            parseExternalSecret(object, { path, apiVersion: `${ESO_GROUP}/${esoVersion}`, namespace, name }),
          );
        }
      } else if (kind === 'ClusterExternalSecret') {
        problems.push(
          problem(
            `(cluster)/${name ?? '(unnamed)'}`,
            'spec.externalSecretSpec',
            'unsupported',
            'ClusterExternalSecret is not checked by the preflight',
          ),
        );
      } else if ((kind === 'SecretStore' || kind === 'ClusterSecretStore') && read && name !== undefined) {
        stores.push(parseSecretStore(object, { kind, name, namespace }));
      }
    }
  }
  return { externalSecrets, stores, problems };
}

/** SecretStores/ClusterSecretStores read live from a cluster (each with its own metadata.namespace). */
export function readLiveStores(objects: readonly unknown[]): SecretStoreDoc[] {
  const stores: SecretStoreDoc[] = [];
  for (const object of objects) {
    if (!isRecord(object)) continue;
    const kind = object.kind;
    const { name, namespace } = metadataOf(object);
    if ((kind !== 'SecretStore' && kind !== 'ClusterSecretStore') || name === undefined) continue;
    stores.push(parseSecretStore(object, { kind, name, ...(namespace ? { namespace } : {}) }));
  }
  return stores;
}

function esoVersionOf(object: Rec): string | undefined {
  const apiVersion = object.apiVersion;
  if (typeof apiVersion !== 'string' || !apiVersion.startsWith(`${ESO_GROUP}/`)) return undefined;
  return apiVersion.slice(ESO_GROUP.length + 1);
}

/** A `kind: List` document (kubectl-style) holds its objects under `items`. */
function flattenLists(doc: unknown): Rec[] {
  if (!isRecord(doc)) return [];
  if (
    doc.kind === 'List' ||
    (typeof doc.kind === 'string' && doc.kind.endsWith('List') && doc.apiVersion === 'v1')
  ) {
    return (arrayField(doc, 'items') ?? []).filter(isRecord);
  }
  return [doc];
}

function problem(
  externalSecret: string,
  field: string,
  outcome: 'error' | 'unsupported',
  message: string,
): SecretCheck {
  return { externalSecret, field, outcome, message };
}
