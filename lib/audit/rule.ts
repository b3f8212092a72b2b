import type { ApplicationView } from './application.js';
import type { ManifestObject } from './manifests.js';
import type { AuditInput, AuditOptions, Evidence, FindingDraft, Severity } from './types.js';

/** An input a rule cannot work without; when it is missing the rule is skipped with a note. */
export const RULE_NEEDS = ['manifests', 'history', 'currentRevision'] as const;
export type RuleNeed = (typeof RULE_NEEDS)[number];

/** What a rule sees: the raw input plus the normalised Application and manifest objects. */
export interface AuditContext {
  readonly input: AuditInput;
  readonly app: ApplicationView;
  /** Empty unless the manifests were read and rendered. */
  readonly objects: readonly ManifestObject[];
  readonly options: AuditOptions;
}

export interface AuditRule {
  /** Stable id, stored with every finding. */
  readonly id: string;
  /** The usual severity; a draft may say otherwise when the evidence is worse or milder. */
  readonly severity: Severity;
  readonly title: string;
  /** One line on how to fix it. */
  readonly docs: string;
  readonly needs: readonly RuleNeed[];
  check(context: AuditContext): readonly FindingDraft[];
}

export interface Hit {
  readonly message: string;
  readonly evidence: Evidence;
  readonly subject?: string;
  readonly severity?: Severity;
}

/** Builds a draft for the app under audit, so rules only say what they found. */
export function draft(
  rule: Pick<AuditRule, 'id' | 'severity'>,
  context: AuditContext,
  hit: Hit,
): FindingDraft {
  return {
    rule: rule.id,
    severity: hit.severity ?? rule.severity,
    cluster: context.input.cluster,
    namespace: context.app.namespace,
    app: context.app.name,
    ...(hit.subject === undefined ? {} : { subject: hit.subject }),
    message: hit.message,
    evidence: hit.evidence,
  };
}

/** The first `max` items, and how many were left out. */
export function capped<T>(items: readonly T[], max: number): { items: T[]; more: number } {
  return { items: items.slice(0, max), more: Math.max(0, items.length - max) };
}
