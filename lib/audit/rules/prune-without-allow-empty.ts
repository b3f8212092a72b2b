import { type AuditRule, draft } from '../rule.js';

/**
 * Argo CD's guard (controller `autoSync`): with automated prune and allowEmpty false (the default), an
 * automated sync in which every resource would be pruned is skipped with the condition "auto-sync will
 * wipe out all resources". allowEmpty true removes that guard; an unset field keeps it only implicitly.
 */
export const pruneWithoutAllowEmptyRule: AuditRule = {
  id: 'prune-without-allow-empty',
  severity: 'low',
  title: 'Automated prune without an explicit allowEmpty: false',
  docs: 'Set spec.syncPolicy.automated.allowEmpty: false next to prune: true, so the empty-render guard is written down and a change to it shows in review.',
  needs: [],
  check(context) {
    const automated = context.app.automated;
    if (automated === undefined || !automated.enabled || !automated.prune) return [];
    if (automated.allowEmpty === false) return [];
    if (automated.allowEmpty === true) {
      return [
        draft(pruneWithoutAllowEmptyRule, context, {
          severity: 'high',
          message:
            'automated prune with allowEmpty: true: Argo CD syncs a render that comes out empty and prunes every resource of the app',
          evidence: { 'spec.syncPolicy.automated.prune': true, 'spec.syncPolicy.automated.allowEmpty': true },
        }),
      ];
    }
    return [
      draft(pruneWithoutAllowEmptyRule, context, {
        message:
          'automated prune relies on allowEmpty being unset: Argo CD defaults it to false and then skips an automated sync that would prune every resource, but the spec does not say so',
        evidence: {
          'spec.syncPolicy.automated.prune': true,
          'spec.syncPolicy.automated.allowEmpty': 'unset',
        },
      }),
    ];
  },
};
