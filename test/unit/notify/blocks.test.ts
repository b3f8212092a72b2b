import { describe, expect, it } from 'vitest';
import { packSections } from '../../../lib/notify/blocks.js';

describe('packSections', () => {
  it('puts short lines together into one section', () => {
    const packed = packSections(['a', 'b', 'c'], 5);
    expect(packed).toEqual({
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'a\nb\nc' } }],
      left: 0,
    });
  });

  it('starts a new section before one would pass 3000 characters', () => {
    const line = 'x'.repeat(1000);
    const packed = packSections([line, line, line, line], 5);
    expect(packed.blocks).toHaveLength(2);
    expect(packed.left).toBe(0);
  });

  it('counts the lines that did not fit into the blocks allowed', () => {
    const line = 'x'.repeat(2000);
    const packed = packSections([line, line, line, line], 2);
    expect(packed.blocks).toHaveLength(2);
    expect(packed.left).toBe(2);
  });
});
