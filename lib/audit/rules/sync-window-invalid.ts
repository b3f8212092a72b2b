import { parseSyncWindows, type SyncWindowEffect } from '../../argocd/sync-window-parse.js';
import { windowMatches } from '../../argocd/sync-windows.js';
import { at, text } from '../k8s-object.js';
import { type AuditRule, draft } from '../rule.js';
import type { Evidence } from '../types.js';

const EFFECTS: Readonly<Record<SyncWindowEffect, string>> = {
  'blocks-sync': 'Argo CD does not sync the apps it matches',
  ignored: 'Argo CD ignores the window',
  'evaluated-in-utc': 'Argo CD reads its schedule in UTC',
  'always-active': 'Argo CD treats the window as always active',
  'never-active': 'the window never opens',
};

export const syncWindowInvalidRule: AuditRule = {
  id: 'sync-window-invalid',
  severity: 'medium',
  title: 'Malformed sync window',
  docs: 'Give each AppProject sync window kind allow or deny, a five-field cron schedule, a Go duration (1h, 30m, 1h30m) and an IANA timeZone.',
  needs: [],
  check(context) {
    const { app, input } = context;
    const projectName = text(at(input.appProject, 'metadata', 'name'));
    if (input.appProject === undefined || (projectName !== undefined && projectName !== app.project))
      return [];
    const target = {
      name: app.name,
      namespace: app.destination.namespace ?? '',
      ...(app.destination.server === undefined ? {} : { server: app.destination.server }),
      ...(app.destination.name === undefined ? {} : { clusterName: app.destination.name }),
    };
    return parseSyncWindows(input.appProject).problems.map((p) => {
      const holdsThisApp = p.selectors !== undefined && windowMatches(p.selectors, target);
      const effect = holdsThisApp ? 'Argo CD does not sync this app while it stands' : EFFECTS[p.effect];
      const evidence: Evidence = {
        index: p.index,
        field: p.field,
        ...(p.value === undefined ? {} : { value: p.value }),
        problem: p.problem,
        effect: p.effect,
      };
      return draft(syncWindowInvalidRule, context, {
        subject: `AppProject/${app.project}/syncWindows[${p.index}].${p.field}`,
        message: `AppProject ${app.project} sync window ${p.index}: ${p.problem}; ${effect}`,
        evidence,
        ...(holdsThisApp ? { severity: 'high' as const } : {}),
      });
    });
  },
};
