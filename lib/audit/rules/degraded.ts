import { type AuditRule, capped, draft } from '../rule.js';
import type { JsonValue } from '../types.js';

const UNHEALTHY = ['Degraded', 'Missing'] as const;

export const degradedRule: AuditRule = {
  id: 'degraded',
  severity: 'high',
  title: 'Application health is Degraded or Missing',
  docs: 'Open the resources named in the health message (events, pod logs); Missing means none of its resources exist: sync the app.',
  needs: [],
  check(context) {
    const { app, options } = context;
    const health = app.health.status;
    if (health === undefined || !(UNHEALTHY as readonly string[]).includes(health)) return [];
    const unhealthy = app.resources
      .filter((r) => r.health !== undefined && (UNHEALTHY as readonly string[]).includes(r.health))
      .map((r) => `${[r.kind, r.namespace, r.name].filter(Boolean).join('/')}: ${r.health}`);
    const shown = capped(unhealthy, options.maxEvidenceItems);
    const evidence: Record<string, JsonValue> = { health, message: app.health.message ?? null };
    if (shown.items.length > 0) evidence.resources = shown.items;
    if (shown.more > 0) evidence.moreResources = shown.more;
    const detail = app.health.message === undefined ? '' : `: ${app.health.message}`;
    return [draft(degradedRule, context, { message: `health is ${health}${detail}`, evidence })];
  },
};
