import { parseAllDocuments } from 'yaml';
import type { Grant, PolicyRule } from './access-control.js';

export interface RbacSubject {
  readonly kind: 'Group' | 'ServiceAccount' | 'User';
  readonly name: string;
  readonly namespace?: string;
}

interface RbacObject {
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  rules?: PolicyRule[];
  roleRef?: { kind?: string; name?: string };
  subjects?: { kind?: string; name?: string; namespace?: string }[];
}

/**
 * What RBAC manifests grant one subject, as simulator `Grant`s: a ClusterRoleBinding grants its
 * ClusterRole cluster-wide, a RoleBinding grants its Role (or ClusterRole) in the binding's namespace.
 */
export function grantsFromRbac(yamlTexts: readonly string[], subject: RbacSubject): Grant[] {
  const objects = yamlTexts.flatMap((text) =>
    parseAllDocuments(text).map((doc) => doc.toJS() as RbacObject | null),
  );
  const roles = new Map<string, PolicyRule[]>();
  for (const object of objects) {
    if (object?.kind === 'ClusterRole') roles.set(`ClusterRole/${object.metadata?.name}`, object.rules ?? []);
    if (object?.kind === 'Role')
      roles.set(`Role/${object.metadata?.namespace}/${object.metadata?.name}`, object.rules ?? []);
  }
  const grants: Grant[] = [];
  for (const binding of objects) {
    if (binding?.kind !== 'ClusterRoleBinding' && binding?.kind !== 'RoleBinding') continue;
    const bound = (binding.subjects ?? []).some(
      (s) =>
        s.kind === subject.kind &&
        s.name === subject.name &&
        (subject.kind !== 'ServiceAccount' || s.namespace === subject.namespace),
    );
    if (!bound) continue;
    const namespace = binding.kind === 'RoleBinding' ? binding.metadata?.namespace : undefined;
    const key =
      binding.roleRef?.kind === 'ClusterRole'
        ? `ClusterRole/${binding.roleRef.name}`
        : `Role/${namespace}/${binding.roleRef?.name}`;
    grants.push({ ...(namespace === undefined ? {} : { namespace }), rules: roles.get(key) ?? [] });
  }
  return grants;
}
