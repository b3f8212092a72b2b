import { at, text } from '../k8s-object.js';
import { type AuditRule, capped, draft } from '../rule.js';
import { annotationOptions, hasOption } from '../sync-options.js';
import { runsBefore, syncPosition } from '../sync-order.js';

const SKIP_DRY_RUN = 'SkipDryRunOnMissingResource=true';

/**
 * Argo CD skips the dry run of a custom resource whose CRD is in the same sync and moves the CRD just
 * before it, in the same wave; nothing then waits for the API server to serve the new kind, so the CR
 * apply can fail with "no matches for kind" (argo-cd#1940). An earlier wave for the CRD waits for it.
 */
export const crdWithoutWaveRule: AuditRule = {
  id: 'crd-without-wave',
  severity: 'medium',
  title: 'CRD and its custom resources in one sync wave',
  docs: 'Give the CRD an earlier argocd.argoproj.io/sync-wave than its custom resources (e.g. "-1"), or annotate the CRs with argocd.argoproj.io/sync-options: SkipDryRunOnMissingResource=true.',
  needs: ['manifests'],
  check(context) {
    const { app, objects, options } = context;
    if (hasOption(app.syncOptions, SKIP_DRY_RUN)) return [];
    return objects.flatMap((crd) => {
      if (crd.group !== 'apiextensions.k8s.io' || crd.kind !== 'CustomResourceDefinition') return [];
      const group = text(at(crd.raw, 'spec', 'group'));
      const kind = text(at(crd.raw, 'spec', 'names', 'kind'));
      const crdPosition = syncPosition(crd);
      if (group === undefined || kind === undefined || crdPosition === undefined) return [];
      const tooEarly = objects.flatMap((cr) => {
        if (cr.group !== group || cr.kind !== kind) return [];
        if (hasOption(annotationOptions(cr), SKIP_DRY_RUN)) return [];
        const position = syncPosition(cr);
        if (position === undefined || runsBefore(crdPosition, position)) return [];
        return [
          `${[cr.kind, cr.namespace, cr.name].filter(Boolean).join('/')} (${position.phase} wave ${position.wave})`,
        ];
      });
      if (tooEarly.length === 0) return [];
      const shown = capped(tooEarly, options.maxEvidenceItems);
      return [
        draft(crdWithoutWaveRule, context, {
          subject: `CustomResourceDefinition/${crd.name}`,
          message: `CRD ${crd.name} is not in an earlier sync wave than ${tooEarly.length} ${kind} resource(s) and they lack ${SKIP_DRY_RUN}: they may be applied before the API server serves ${kind}`,
          evidence: {
            path: crd.path,
            crd: `${crdPosition.phase} wave ${crdPosition.wave}`,
            customResources: shown.items,
            ...(shown.more > 0 ? { moreCustomResources: shown.more } : {}),
          },
        }),
      ];
    });
  },
};
