import { automatedPrune } from '../application.js';
import { at, stringList, subjectOf } from '../k8s-object.js';
import { type AuditRule, draft } from '../rule.js';
import { annotationOptions, optionValue } from '../sync-options.js';
import { RESOURCES_FINALIZERS } from './missing-finalizer.js';

const CHILD_KINDS = ['Application', 'ApplicationSet'] as const;
const SAFE_PRUNE = ['confirm', 'false'] as const;

export const appOfAppsPruneRule: AuditRule = {
  id: 'app-of-apps-prune',
  severity: 'high',
  title: 'App-of-apps root prunes child Applications without confirmation',
  docs: 'Annotate each child Application with argocd.argoproj.io/sync-options: Prune=confirm (or Prune=false), or set it in the root app syncOptions.',
  needs: ['manifests'],
  check(context) {
    const { app, objects } = context;
    if (!automatedPrune(app)) return [];
    const children = objects.filter(
      (o) => o.group === 'argoproj.io' && (CHILD_KINDS as readonly string[]).includes(o.kind),
    );
    return children.flatMap((child) => {
      const own = annotationOptions(child);
      // A Prune option on the resource overrides the app-level one (Argo CD sync options docs).
      const prune = optionValue('Prune', own, app.syncOptions);
      if (prune !== undefined && (SAFE_PRUNE as readonly string[]).includes(prune)) return [];
      const finalizers = stringList(at(child.raw, 'metadata', 'finalizers'));
      const cascades =
        child.kind === 'ApplicationSet' ||
        finalizers.some((f) => (RESOURCES_FINALIZERS as readonly string[]).includes(f));
      const consequence = cascades
        ? child.kind === 'ApplicationSet'
          ? 'deletes the Applications it generated'
          : 'cascades to every resource it deployed (resources finalizer)'
        : 'leaves its resources unmanaged';
      return [
        draft(appOfAppsPruneRule, context, {
          subject: subjectOf(child),
          severity: cascades ? 'high' : 'medium',
          message: `automated prune of child ${child.kind} ${child.name} has no Prune=confirm/Prune=false: removing it from Git ${consequence}`,
          evidence: {
            path: child.path,
            'sync-options': child.annotations['argocd.argoproj.io/sync-options'] ?? null,
            'spec.syncPolicy.syncOptions': [...app.syncOptions],
            cascades,
          },
        }),
      ];
    });
  },
};
