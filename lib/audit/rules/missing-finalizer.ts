import { type AuditRule, draft } from '../rule.js';

export const RESOURCES_FINALIZERS = [
  'resources-finalizer.argocd.argoproj.io',
  'resources-finalizer.argocd.argoproj.io/background',
  'resources-finalizer.argocd.argoproj.io/foreground',
] as const;

export const missingFinalizerRule: AuditRule = {
  id: 'missing-finalizer',
  severity: 'low',
  title: 'Application without the resources finalizer',
  docs: 'Add metadata.finalizers: [resources-finalizer.argocd.argoproj.io] so deleting the Application also deletes its resources instead of orphaning them.',
  needs: [],
  check(context) {
    const { finalizers } = context.app;
    if (finalizers.some((f) => (RESOURCES_FINALIZERS as readonly string[]).includes(f))) return [];
    return [
      draft(missingFinalizerRule, context, {
        message:
          'no resources-finalizer.argocd.argoproj.io: deleting this Application leaves its resources running, unmanaged',
        evidence: { 'metadata.finalizers': [...finalizers] },
      }),
    ];
  },
};
