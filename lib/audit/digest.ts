import type { FindingChanges } from './lifecycle.js';
import { redact } from './sanitize.js';
import { type Finding, SEVERITIES, type Severity } from './types.js';

export type DigestBlock =
  | { readonly type: 'header'; readonly text: { readonly type: 'plain_text'; readonly text: string } }
  | { readonly type: 'section'; readonly text: { readonly type: 'mrkdwn'; readonly text: string } }
  | {
      readonly type: 'context';
      readonly elements: readonly { readonly type: 'mrkdwn'; readonly text: string }[];
    };

export interface FindingsDigest {
  /** Notification fallback text (also what screen readers get). */
  readonly text: string;
  readonly blocks: readonly DigestBlock[];
}

export interface DigestOptions {
  /** Findings listed in all; the rest are counted ("and N more"). Default 20. */
  readonly maxItems?: number;
  /**
   * How many findings each section had per severity, when `changes` holds only the first of them (a pass
   * settles cluster by cluster and keeps only what a digest can list); default: the lists' lengths.
   */
  readonly totals?: Readonly<Record<'created' | 'resolved', Partial<Record<Severity, number>>>>;
}

const SECTION_LIMIT = 2900; // Slack allows 3000 characters in a section's text
const BLOCK_LIMIT = 50;
const LABEL: Readonly<Record<Severity, string>> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  info: 'Info',
};

/** A Slack digest of what changed in this pass: created (incl. reopened) and resolved findings only. */
export function buildFindingsDigest(
  changes: Pick<FindingChanges, 'created' | 'resolved'>,
  options: DigestOptions = {},
): FindingsDigest | undefined {
  const { created, resolved } = changes;
  const count = (title: 'created' | 'resolved', severity?: Severity): number => {
    const list = changes[title];
    const totals = options.totals?.[title];
    if (totals === undefined)
      return severity === undefined ? list.length : list.filter((f) => f.severity === severity).length;
    return severity === undefined
      ? SEVERITIES.reduce((sum, s) => sum + (totals[s] ?? 0), 0)
      : (totals[severity] ?? 0);
  };
  if (count('created') === 0 && count('resolved') === 0) return undefined;
  let budget = Math.max(0, options.maxItems ?? 20);
  const header: DigestBlock = {
    type: 'header',
    text: { type: 'plain_text', text: headline(count('created'), count('resolved')) },
  };
  const sections: { block: DigestBlock; title: 'New' | 'Resolved'; lines: number }[] = [];
  const more = { New: 0, Resolved: 0 };
  for (const [title, findings, key] of [
    ['New', created, 'created'],
    ['Resolved', resolved, 'resolved'],
  ] as const) {
    for (const severity of SEVERITIES) {
      const group = sortedForDigest(findings.filter((f) => f.severity === severity));
      const total = count(key, severity);
      if (total === 0) continue;
      const shown = group.slice(0, budget);
      budget -= shown.length;
      more[title] += total - shown.length;
      if (shown.length === 0) continue;
      const heading = `*${title} · ${LABEL[severity]}* (${total})`;
      for (const part of chunk(heading, shown.map(line))) {
        sections.push({ block: section(part.text), title, lines: part.lines });
      }
    }
  }
  // Slack takes at most 50 blocks: the header, the sections that fit, and the closing count.
  const kept = sections.slice(0, BLOCK_LIMIT - 2);
  for (const dropped of sections.slice(kept.length)) more[dropped.title] += dropped.lines;
  const blocks: DigestBlock[] = [header, ...kept.map((s) => s.block)];
  const left = (['New', 'Resolved'] as const).flatMap((t) =>
    more[t] > 0 ? [`${more[t]} more ${t.toLowerCase()}`] : [],
  );
  if (left.length > 0) {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `…and ${left.join(', ')}` }] });
  }
  return { text: fallback(count), blocks };
}

function headline(created: number, resolved: number): string {
  const parts = [];
  if (created > 0) parts.push(`${created} new`);
  if (resolved > 0) parts.push(`${resolved} resolved`);
  return `Audit findings: ${parts.join(', ')}`;
}

function fallback(count: (title: 'created' | 'resolved', severity?: Severity) => number): string {
  const bySeverity = SEVERITIES.flatMap((s) => {
    const n = count('created', s);
    return n === 0 ? [] : [`${n} ${s}`];
  });
  const parts = [];
  if (count('created') > 0) parts.push(`${count('created')} new finding(s) (${bySeverity.join(', ')})`);
  if (count('resolved') > 0) parts.push(`${count('resolved')} resolved`);
  return `Audit: ${parts.join(', ')}`;
}

function line(finding: Finding): string {
  const where = `${finding.cluster}/${finding.namespace}/${finding.app}`;
  const subject = finding.subject === undefined ? '' : ` ${escapeMrkdwn(finding.subject)}`;
  const reopened =
    finding.resolvedAt === undefined && finding.firstSeen !== finding.lastSeen ? ' _(reopened)_' : '';
  return `• *${escapeMrkdwn(finding.rule)}* \`${escapeMrkdwn(where)}\`${subject}${reopened} — ${escapeMrkdwn(redact(finding.message, 240))}`;
}

/** The digest's order within a section and severity. */
export function sortedForDigest(findings: readonly Finding[]): Finding[] {
  const key = (f: Finding) => [f.cluster, f.namespace, f.app, f.rule, f.subject ?? ''].join('\u0000');
  return [...findings].sort((a, b) => key(a).localeCompare(key(b)));
}

/** Splits lines into section texts under Slack's limit; only the first carries the heading. */
function chunk(heading: string, lines: readonly string[]): { text: string; lines: number }[] {
  const parts: { text: string; lines: number }[] = [];
  let current = { text: heading, lines: 0 };
  for (const item of lines) {
    if (current.text.length + 1 + item.length > SECTION_LIMIT) {
      parts.push(current);
      current = { text: item, lines: 1 };
    } else current = { text: `${current.text}\n${item}`, lines: current.lines + 1 };
  }
  parts.push(current);
  return parts;
}

function section(text: string): DigestBlock {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}

/** Slack mrkdwn control characters. */
function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
