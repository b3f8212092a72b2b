import { at, isRecord, type K8sObject, list, readObject, text } from './k8s-object.js';
import type { AppManifests } from './types.js';

export interface ManifestObject extends K8sObject {
  /** The repository file it came from. */
  readonly path: string;
}

export interface ReadManifests {
  readonly objects: readonly ManifestObject[];
  /** Paths of documents that are not Kubernetes objects (no apiVersion, kind or name). */
  readonly ignored: readonly string[];
}

/** Built-in kinds without a namespace (Argo CD asks discovery; we have none, so these are known). */
const CLUSTER_SCOPED = new Set([
  '/Namespace',
  '/Node',
  '/PersistentVolume',
  'storage.k8s.io/StorageClass',
  'storage.k8s.io/CSIDriver',
  'apiextensions.k8s.io/CustomResourceDefinition',
  'rbac.authorization.k8s.io/ClusterRole',
  'rbac.authorization.k8s.io/ClusterRoleBinding',
  'scheduling.k8s.io/PriorityClass',
  'networking.k8s.io/IngressClass',
  'node.k8s.io/RuntimeClass',
  'apiregistration.k8s.io/APIService',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
]);

/**
 * The app's manifest documents as objects. A `v1` `List` is opened into its items; namespaced objects
 * without a namespace get the app's destination namespace, as Argo CD applies them.
 */
export function readManifests(manifests: AppManifests, destinationNamespace?: string): ReadManifests {
  const docs: { path: string; doc: unknown }[] = [];
  const ignored: string[] = [];
  const open = (path: string, doc: unknown): void => {
    if (doc === null || doc === undefined) return;
    if (isRecord(doc) && doc.apiVersion === 'v1' && doc.kind === 'List') {
      for (const item of list(doc.items)) open(path, item);
    } else docs.push({ path, doc });
  };
  for (const { path, doc } of manifests.docs) open(path, doc);
  const clusterScoped = new Set(CLUSTER_SCOPED);
  for (const { doc } of docs) {
    const crd = readObject(doc);
    if (crd?.group !== 'apiextensions.k8s.io' || crd.kind !== 'CustomResourceDefinition') continue;
    const group = text(at(doc, 'spec', 'group'));
    const kind = text(at(doc, 'spec', 'names', 'kind'));
    if (group !== undefined && kind !== undefined && at(doc, 'spec', 'scope') === 'Cluster') {
      clusterScoped.add(`${group}/${kind}`);
    }
  }
  const objects: ManifestObject[] = [];
  for (const { path, doc } of docs) {
    const object = readObject(doc);
    if (object === undefined) {
      ignored.push(path);
      continue;
    }
    const scoped = clusterScoped.has(`${object.group}/${object.kind}`);
    const namespace = scoped ? undefined : (object.namespace ?? destinationNamespace);
    const { namespace: _, ...rest } = object;
    objects.push({ ...rest, ...(namespace === undefined ? {} : { namespace }), path });
  }
  return { objects, ignored };
}
