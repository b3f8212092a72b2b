import { at, list, text } from '../k8s-object.js';
import { type AuditRule, capped, draft } from '../rule.js';
import type { JsonValue } from '../types.js';

export const defaultProjectOrWildcardRule: AuditRule = {
  id: 'default-project-or-wildcard',
  severity: 'medium',
  title: 'Default project or wildcard destination',
  docs: 'Put the app in its own AppProject with explicit sourceRepos and destinations (server and namespace), never `*`.',
  needs: [],
  check(context) {
    const { app, input, options } = context;
    const reasons: string[] = [];
    const evidence: Record<string, JsonValue> = {};
    if (app.project === 'default') {
      reasons.push('uses the default AppProject');
      evidence['spec.project'] = 'default';
    }
    if (app.destination.namespace === '*') {
      reasons.push("destination namespace is '*'");
      evidence['spec.destination.namespace'] = '*';
    }
    const projectName = text(at(input.appProject, 'metadata', 'name'));
    const wildcards =
      projectName === undefined || projectName === app.project ? wildcardDestinations(input.appProject) : [];
    if (wildcards.length > 0) {
      reasons.push(`AppProject ${app.project} allows ${wildcards.length} wildcard destination(s)`);
      evidence['appProject.spec.destinations'] = capped(wildcards, options.maxEvidenceItems).items;
    }
    if (reasons.length === 0) return [];
    return [draft(defaultProjectOrWildcardRule, context, { message: reasons.join('; '), evidence })];
  },
};

/** AppProject destinations whose server, name or namespace is `*`, e.g. `server=* namespace=*`. */
function wildcardDestinations(project: unknown): string[] {
  const out: string[] = [];
  for (const destination of list(at(project, 'spec', 'destinations'))) {
    const server = text(at(destination, 'server'));
    const name = text(at(destination, 'name'));
    const namespace = text(at(destination, 'namespace'));
    if (server === '*' || name === '*' || namespace === '*') {
      const cluster = server !== undefined ? `server=${server}` : `name=${name ?? ''}`;
      out.push(`${cluster} namespace=${namespace ?? ''}`);
    }
  }
  return out;
}
