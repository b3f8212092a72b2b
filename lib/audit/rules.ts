import type { AuditRule } from './rule.js';
import { appOfAppsPruneRule } from './rules/app-of-apps-prune.js';
import { crdWithoutWaveRule } from './rules/crd-without-wave.js';
import { defaultProjectOrWildcardRule } from './rules/default-project-or-wildcard.js';
import { degradedRule } from './rules/degraded.js';
import { driftRule } from './rules/drift.js';
import { floatingImageTagRule } from './rules/floating-image-tag.js';
import { hpaReplicasNotIgnoredRule } from './rules/hpa-replicas-not-ignored.js';
import { missingFinalizerRule } from './rules/missing-finalizer.js';
import { operationStuckRule } from './rules/operation-stuck.js';
import { plaintextSecretRule } from './rules/plaintext-secret.js';
import { pruneWithoutAllowEmptyRule } from './rules/prune-without-allow-empty.js';
import { selfHealThrashRule } from './rules/selfheal-thrash.js';
import { syncWindowInvalidRule } from './rules/sync-window-invalid.js';

/** Every audit rule, in the order findings are reported. */
export const AUDIT_RULES: readonly AuditRule[] = Object.freeze([
  driftRule,
  degradedRule,
  operationStuckRule,
  selfHealThrashRule,
  pruneWithoutAllowEmptyRule,
  appOfAppsPruneRule,
  hpaReplicasNotIgnoredRule,
  crdWithoutWaveRule,
  plaintextSecretRule,
  floatingImageTagRule,
  missingFinalizerRule,
  defaultProjectOrWildcardRule,
  syncWindowInvalidRule,
]);

/** The id under which a rule that threw is reported. */
export const RULE_ERROR_ID = 'audit-rule-error';

export function ruleById(id: string): AuditRule | undefined {
  return AUDIT_RULES.find((rule) => rule.id === id);
}
