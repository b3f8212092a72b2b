import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const DIR = join(import.meta.dirname, '../../../infra/rbac');

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}
interface RbacObject {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: Rule[];
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

const objects: RbacObject[] = readdirSync(DIR)
  .filter((file) => file.endsWith('.yaml'))
  .flatMap((file) =>
    parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((d) => d.toJS() as RbacObject),
  );

/** Every (scope, group, resource) → verbs the manifests grant, through their bindings. */
function grants(): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const binding of objects.filter((o) => o.kind.endsWith('RoleBinding'))) {
    const role = objects.find(
      (o) =>
        o.kind === binding.roleRef?.kind &&
        o.metadata.name === binding.roleRef?.name &&
        (o.kind === 'ClusterRole' || o.metadata.namespace === binding.metadata.namespace),
    );
    expect(role, `${binding.metadata.name} refers to a role defined here`).toBeDefined();
    const scope = binding.kind === 'ClusterRoleBinding' ? 'cluster' : (binding.metadata.namespace as string);
    for (const rule of role?.rules ?? []) {
      for (const group of rule.apiGroups) {
        for (const resource of rule.resources)
          result[`${scope} ${group}/${resource}`] = [...rule.verbs].sort();
      }
    }
  }
  return result;
}

describe('the orchestrator RBAC in infra/rbac', () => {
  it('grants exactly the verbs the orchestrator needs, where it needs them', () => {
    const read = ['list'];
    expect(grants()).toEqual({
      'argocd argoproj.io/applications': ['list', 'patch'],
      'argocd argoproj.io/applicationsets': ['list', 'patch'],
      // Sync windows (fan-out holds an app in a deny window) and the polling setting (reconcile's gate).
      'argocd argoproj.io/appprojects': read,
      'argocd /configmaps': ['get'],
      'flux-system source.toolkit.fluxcd.io/gitrepositories': ['list', 'patch'],
      'cluster external-secrets.io/externalsecrets': read,
      'cluster external-secrets.io/secretstores': read,
      'cluster external-secrets.io/clustersecretstores': read,
      'cluster autoscaling/horizontalpodautoscalers': read,
      'cluster keda.sh/scaledobjects': read,
      // The ServiceAccount a SecretStore's auth.jwt names: its IRSA role annotation (preflight).
      'cluster /serviceaccounts': ['get'],
    });
  });

  it('uses no wildcard anywhere', () => {
    const rules = objects.flatMap((o) => o.rules ?? []);
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) {
      expect([...rule.apiGroups, ...rule.resources, ...rule.verbs]).not.toContain('*');
      expect(rule.resources.some((r) => r.includes('*'))).toBe(false);
    }
  });

  it('gives no access to Secrets, and of the core API group only a get of argocd-cm and of ServiceAccounts', () => {
    const rules = objects.flatMap((o) => o.rules ?? []);
    expect(rules.flatMap((r) => r.resources)).not.toContain('secrets');
    const core = rules.filter((r) => r.apiGroups.includes(''));
    expect(core).toEqual([
      { apiGroups: [''], resources: ['configmaps'], resourceNames: ['argocd-cm'], verbs: ['get'] },
      { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get'] },
    ]);
  });

  it('binds the EKS group and the token ServiceAccount, nobody else', () => {
    const subjects = new Set(
      objects.flatMap((o) => o.subjects ?? []).map((s) => `${s.kind}/${s.namespace ?? ''}/${s.name}`),
    );
    expect([...subjects].sort()).toEqual([
      'Group//gitops-sync-orchestrator',
      'ServiceAccount/gitops-sync/gitops-sync-orchestrator',
    ]);
  });
});
