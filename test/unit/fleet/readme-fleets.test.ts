import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { deployScopes } from '../../../lib/fleet/aws-scopes.js';
import { checkFleetFile } from '../../../lib/fleet/fleet-file.js';

/** The pages that show fleet files (the examples moved from the README to docs/ with the docs split). */
const PAGES = ['README.md', 'docs/fleet.md', 'docs/local.md', 'docs/deploy.md'];

/** Every ```yaml block of a page whose top level has `clusters`, with its page and last line number. */
function readmeFleets(): { line: string; text: string }[] {
  return PAGES.flatMap((page) => fleetsOf(page).map((b) => ({ line: `${page}:${b.line}`, text: b.text })));
}

function fleetsOf(page: string): { line: number; text: string }[] {
  const lines = readFileSync(page, 'utf8').split('\n');
  const blocks: { line: number; text: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== '```yaml') continue;
    const end = lines.findIndex((l, j) => j > i && l.trim() === '```');
    const text = lines.slice(i + 1, end).join('\n');
    i = end;
    let doc: unknown;
    try {
      doc = parse(text);
    } catch {
      doc = undefined; // not YAML at all: validated below only if it claims to be a fleet
    }
    if ((doc !== null && typeof doc === 'object' && 'clusters' in doc) || /^clusters:/m.test(text))
      blocks.push({ line: i + 1, text });
  }
  return blocks;
}

describe('the fleet examples of the README and docs', () => {
  const blocks = readmeFleets();

  it('finds the fleet examples of the docs', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
  });

  it.each(blocks.map((b) => [b.line, b.text] as const))(
    'the fleet example ending at %s validates (deployed rules and stage dev names unless it says --local)',
    (_line, text) => {
      const mode = text.includes('validate --local') ? 'local' : 'deployed';
      // A deployed example deploys as shown with the default stage: its secrets and roles are dev's.
      const scopes = mode === 'deployed' ? { scopes: deployScopes('dev', 'eu-west-1') } : {};
      const result = checkFleetFile(text, 'docs block', { mode, ...scopes });
      expect(result.ok ? [] : result.problems).toEqual([]);
    },
  );
});
