import { isRecord, subjectOf } from '../k8s-object.js';
import { type AuditRule, capped, draft } from '../rule.js';

export const plaintextSecretRule: AuditRule = {
  id: 'plaintext-secret',
  severity: 'critical',
  title: 'Plain Kubernetes Secret with data in Git',
  docs: 'Move the values to AWS Secrets Manager and deliver them with an ExternalSecret (or encrypt them, e.g. SealedSecret/SOPS); rotate every value that was committed.',
  needs: ['manifests'],
  check(context) {
    const { objects, options } = context;
    return objects.flatMap((secret) => {
      if (secret.apiVersion !== 'v1' || secret.kind !== 'Secret') return [];
      // Key names only: the values never leave this function.
      const dataKeys = isRecord(secret.raw.data) ? Object.keys(secret.raw.data) : [];
      const stringDataKeys = isRecord(secret.raw.stringData) ? Object.keys(secret.raw.stringData) : [];
      if (dataKeys.length === 0 && stringDataKeys.length === 0) return [];
      const count = dataKeys.length + stringDataKeys.length;
      return [
        draft(plaintextSecretRule, context, {
          subject: subjectOf(secret),
          message: `Secret ${secret.name} in ${secret.path} carries ${count} value(s) in Git (base64 is not encryption)`,
          evidence: {
            path: secret.path,
            dataKeys: capped(dataKeys, options.maxEvidenceItems).items,
            stringDataKeys: capped(stringDataKeys, options.maxEvidenceItems).items,
          },
        }),
      ];
    });
  },
};
