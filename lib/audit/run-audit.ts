import { errorMessage } from '../errors.js';
import { readApplication } from './application.js';
import { at, text } from './k8s-object.js';
import { findingKey } from './lifecycle.js';
import { type ManifestObject, readManifests } from './manifests.js';
import type { AuditContext, AuditRule, RuleNeed } from './rule.js';
import { AUDIT_RULES, RULE_ERROR_ID } from './rules.js';
import { redact, sanitizeEvidence } from './sanitize.js';
import {
  type AuditInput,
  type AuditNote,
  type AuditOptions,
  DEFAULT_AUDIT_OPTIONS,
  type FindingDraft,
} from './types.js';

export interface AuditResult {
  readonly findings: readonly FindingDraft[];
  /** What could not be audited, and why (no evidence). Pass them to `reconcileFindings` as scope. */
  readonly notes: readonly AuditNote[];
}

/** Runs every rule on one app. A rule that throws is reported as an `audit-rule-error` finding and note. */
export function auditApp(
  input: AuditInput,
  rules: readonly AuditRule[] = AUDIT_RULES,
  options: Partial<AuditOptions> = {},
): AuditResult {
  const resolved: AuditOptions = { ...DEFAULT_AUDIT_OPTIONS, ...options };
  const app = readApplication(input.application, '');
  if (app === undefined) {
    const name = text(at(input.application, 'metadata', 'name')) ?? '';
    const namespace = text(at(input.application, 'metadata', 'namespace')) ?? '';
    const message = 'not an Application object (no metadata.name): nothing audited';
    return {
      findings: [],
      notes: [{ kind: 'skipped', rule: '*', cluster: input.cluster, namespace, app: name, message }],
    };
  }
  const notes: AuditNote[] = [];
  const note = (kind: AuditNote['kind'], rule: string, message: string): void => {
    notes.push({ kind, rule, cluster: input.cluster, namespace: app.namespace, app: app.name, message });
  };
  const manifests = input.manifests;
  let objects: readonly ManifestObject[] = [];
  if (manifests !== undefined && manifests.notRendered !== true) {
    const read = readManifests(manifests, app.destination.namespace);
    objects = read.objects;
    if (read.ignored.length > 0) {
      const paths = [...new Set(read.ignored)].slice(0, 5).join(', ');
      note(
        'ignored-objects',
        '*',
        `${read.ignored.length} document(s) without apiVersion/kind/name ignored: ${paths}`,
      );
    }
  }
  const context: AuditContext = { input, app, objects, options: resolved };
  const findings: FindingDraft[] = [];
  const seen = new Set<string>();
  const keep = (found: FindingDraft, rule?: AuditRule): void => {
    // A finding about manifest objects says whether Argo CD rendered them or they were read from Git.
    const renderedBy = rule?.needs.includes('manifests') ? manifests?.renderedBy : undefined;
    const evidence = renderedBy === undefined ? found.evidence : { ...found.evidence, renderedBy };
    const clean = { ...found, message: redact(found.message), evidence: sanitizeEvidence(evidence) };
    const key = findingKey(clean);
    if (seen.has(key)) return;
    seen.add(key);
    findings.push(clean);
  };
  for (const rule of rules) {
    const missing = rule.needs.find((need) => !available(need, input));
    if (missing !== undefined) {
      note('skipped', rule.id, unavailableReason(missing, input));
      continue;
    }
    try {
      for (const found of rule.check(context)) keep(found, rule);
    } catch (error) {
      const reason = redact(errorMessage(error), 200);
      note('rule-error', rule.id, `rule failed: ${reason}`);
      keep({
        rule: RULE_ERROR_ID,
        severity: 'info',
        cluster: input.cluster,
        namespace: app.namespace,
        app: app.name,
        subject: rule.id,
        message: `audit rule ${rule.id} failed on this app: ${reason}`,
        evidence: { rule: rule.id, error: reason },
      });
      continue;
    }
    if (rule.needs.includes('manifests') && manifests?.limitReached === true) {
      note(
        'partial',
        rule.id,
        manifests.renderNote !== undefined
          ? `${manifests.renderNote}; read from Git instead: findings on the rest are kept as they were`
          : 'manifests were cut at a size limit: findings on the rest are kept as they were',
      );
    }
  }
  return { findings, notes };
}

function available(need: RuleNeed, input: AuditInput): boolean {
  switch (need) {
    case 'manifests':
      return input.manifests !== undefined && input.manifests.notRendered !== true;
    case 'history':
      return input.history !== undefined;
    case 'currentRevision':
      return input.currentRevision !== undefined || (input.currentRevisions?.length ?? 0) > 0;
  }
}

function unavailableReason(need: RuleNeed, input: AuditInput): string {
  switch (need) {
    case 'manifests':
      return input.manifests === undefined
        ? 'manifests were not read'
        : input.manifests.renderNote !== undefined
          ? `manifests are not rendered here (Helm chart templates): ${input.manifests.renderNote}`
          : 'manifests are not rendered here (Helm chart templates): name an Argo CD API for the cluster (argocdUrl) to audit its rendering';
    case 'history':
      return 'sync history was not read';
    case 'currentRevision':
      return 'the current commit of the target revision is unknown';
  }
}
