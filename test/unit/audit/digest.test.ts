import { describe, expect, it } from 'vitest';
import { buildFindingsDigest } from '../../../lib/audit/digest.js';
import { type Finding, SEVERITIES, type Severity } from '../../../lib/audit/types.js';

const finding = (i: number, severity: Severity, overrides: Partial<Finding> = {}): Finding => ({
  rule: 'floating-image-tag',
  severity,
  cluster: 'hub-eu',
  namespace: 'argocd',
  app: `app-${String(i).padStart(2, '0')}`,
  subject: `Deployment/shop/web-${i}`,
  message: `Deployment web-${i} runs 1 image(s) without a pinned tag`,
  evidence: { path: 'apps/web.yaml' },
  firstSeen: '2026-08-01T12:00:00.000Z',
  lastSeen: '2026-08-01T12:00:00.000Z',
  ...overrides,
});
const texts = (digest: ReturnType<typeof buildFindingsDigest>) =>
  (digest?.blocks ?? []).map((b) => (b.type === 'context' ? b.elements[0]?.text : b.text.text)).join('\n');

describe('buildFindingsDigest', () => {
  it('returns undefined when nothing was created or resolved', () => {
    expect(buildFindingsDigest({ created: [], resolved: [] })).toBeUndefined();
  });

  it('lists only the created and resolved findings it is given, grouped by severity, most severe first', () => {
    const digest = buildFindingsDigest({
      created: [finding(1, 'low'), finding(2, 'critical'), finding(3, 'low')],
      resolved: [finding(4, 'high', { resolvedAt: '2026-08-01T12:00:00.000Z' })],
    });
    expect(digest?.text).toBe('Audit: 3 new finding(s) (1 critical, 2 low), 1 resolved');
    const sections = digest?.blocks
      .filter((b) => b.type === 'section')
      .map((b) => b.text.text.split('\n')[0]);
    expect(sections).toEqual(['*New · Critical* (1)', '*New · Low* (2)', '*Resolved · High* (1)']);
    expect(digest?.blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: 'Audit findings: 3 new, 1 resolved' },
    });
  });

  it('counts from the totals it is given when it holds only the first findings of each section', () => {
    const digest = buildFindingsDigest(
      { created: [finding(1, 'high'), finding(2, 'high')], resolved: [] },
      { maxItems: 2, totals: { created: { high: 300_000, low: 5 }, resolved: {} } },
    );
    expect(digest?.text).toBe('Audit: 300005 new finding(s) (300000 high, 5 low)');
    expect(texts(digest)).toContain('*New · High* (300000)');
    expect(texts(digest).match(/^• /gm)).toHaveLength(2);
    expect(digest?.blocks.at(-1)).toEqual({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: '…and 300003 more new' }],
    });
  });

  it('caps the list and says how many more there are', () => {
    const created = Array.from({ length: 30 }, (_, i) => finding(i, 'medium'));
    const resolved = Array.from({ length: 4 }, (_, i) => finding(100 + i, 'low', { resolvedAt: 'x' }));
    const digest = buildFindingsDigest({ created, resolved }, { maxItems: 10 });
    const all = texts(digest);
    expect(all.match(/^• /gm)).toHaveLength(10);
    expect(digest?.blocks.at(-1)).toEqual({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: '…and 20 more new, 4 more resolved' }],
    });
  });

  it('marks a reopened finding', () => {
    const reopened = finding(1, 'high', { firstSeen: '2026-07-01T00:00:00.000Z' });
    expect(texts(buildFindingsDigest({ created: [reopened], resolved: [] }))).toContain('_(reopened)_');
  });

  it('escapes Slack control characters and strips URL credentials from messages', () => {
    const odd = finding(1, 'high', { message: 'fetch <https://bot:tok3n@github.com/org/x> & retry' });
    const all = texts(buildFindingsDigest({ created: [odd], resolved: [] }));
    expect(all).toContain('fetch &lt;https://***@github.com/org/x&gt; &amp; retry');
    expect(all).not.toContain('tok3n');
  });

  it('keeps every section under the Slack text limit and the message under 50 blocks', () => {
    const long = 'x'.repeat(400);
    const created = Array.from({ length: 200 }, (_, i) =>
      finding(i, SEVERITIES[i % 5] ?? 'info', { message: long }),
    );
    const digest = buildFindingsDigest({ created, resolved: [] }, { maxItems: 200 });
    expect(digest?.blocks.length).toBeLessThanOrEqual(50);
    for (const block of digest?.blocks ?? []) {
      if (block.type === 'section') expect(block.text.text.length).toBeLessThanOrEqual(3000);
    }
  });
});
