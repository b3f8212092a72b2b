import { truncate } from './mrkdwn.js';
import type { SlackBlock } from './types.js';

/** Slack's documented limits for a message and its blocks. */
export const SLACK_LIMITS = {
  blocksPerMessage: 50,
  sectionText: 3000,
  headerText: 150,
  fallbackText: 4000,
} as const;

export function header(text: string): SlackBlock {
  return {
    type: 'header',
    text: { type: 'plain_text', text: truncate(text, SLACK_LIMITS.headerText), emoji: true },
  };
}

export function section(text: string): SlackBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(text, SLACK_LIMITS.sectionText) } };
}

export function context(text: string): SlackBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: truncate(text, SLACK_LIMITS.sectionText) }] };
}

export const divider: SlackBlock = { type: 'divider' };

export interface PackedLines {
  readonly blocks: readonly SlackBlock[];
  /** How many of the lines did not fit into `maxBlocks`. */
  readonly left: number;
}

/**
 * Packs lines into as few sections as the per-section character limit allows, at most `maxBlocks`
 * sections; a line never straddles two sections (it would break mrkdwn spans and quotes).
 */
export function packSections(lines: readonly string[], maxBlocks: number): PackedLines {
  const blocks: SlackBlock[] = [];
  let current: string[] = [];
  let length = 0;
  let used = 0;
  for (const raw of lines) {
    const line = truncate(raw, SLACK_LIMITS.sectionText);
    const grown = length === 0 ? line.length : length + 1 + line.length;
    if (grown > SLACK_LIMITS.sectionText && current.length > 0) {
      if (blocks.length + 1 >= maxBlocks) break;
      blocks.push(section(current.join('\n')));
      current = [];
      length = 0;
    }
    current.push(line);
    length = length === 0 ? line.length : length + 1 + line.length;
    used += 1;
  }
  if (current.length > 0 && blocks.length < maxBlocks) blocks.push(section(current.join('\n')));
  else used -= current.length;
  return { blocks, left: lines.length - used };
}
