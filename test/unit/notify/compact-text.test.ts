import { describe, expect, it } from 'vitest';
import { compactText } from '../../../lib/notify/compact-text.js';

describe('compactText', () => {
  it('turns blocks into plain lines with link labels and decoded entities', () => {
    const lines = compactText({
      text: 'fallback',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'Title' } },
        { type: 'section', text: { type: 'mrkdwn', text: '<https://x.example|repo> a &amp; b\n&lt;c&gt;' } },
        { type: 'divider' },
        { type: 'context', elements: [{ type: 'mrkdwn', text: 'more' }] },
      ],
    });
    expect(lines).toEqual(['Title', 'repo a & b', '<c>', '---', 'more']);
  });

  it('falls back to the text when there are no blocks, and skips malformed ones', () => {
    expect(compactText({ text: 'only text', blocks: [null, 3, { type: 'section' }] })).toEqual(['only text']);
  });
});
