import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { brokenLinks, documentationFiles, headingAnchors, markdownLinks } from './markdown-links.js';

describe('the documentation links', () => {
  const root = process.cwd();
  const files = documentationFiles(root);

  it('finds the README and the docs pages', () => {
    expect(files).toContain('README.md');
    expect(files).toContain(join('docs', 'deploy.md'));
    expect(files.length).toBeGreaterThan(20);
  });

  it.each(files)('every relative link of %s points at an existing file and heading', (file) => {
    expect(brokenLinks(root, file)).toEqual([]);
  });
});

describe('the link checker', () => {
  const dir = mkdtempSync(join(tmpdir(), 'docs-links-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads links and images, not code spans or fenced code', () => {
    const text = [
      'See [the guide](docs/guide.md#start) and ![a picture](pic.png "title").',
      'Not `[code](nowhere.md)`.',
      '```',
      '[fenced](nowhere.md)',
      '```',
      '[web](https://example.com/x)',
    ].join('\n');
    expect(markdownLinks(text).map((l) => [l.line, l.target])).toEqual([
      [1, 'docs/guide.md#start'],
      [1, 'pic.png'],
      [6, 'https://example.com/x'],
    ]);
  });

  it('builds anchors as GitHub does', () => {
    const text = [
      '# Command line (`gitops-sync`)',
      '## 7. Network: NAT, or endpoints',
      '## Notes',
      '## Notes',
      '```',
      '# not a heading',
      '```',
    ].join('\n');
    expect([...headingAnchors(text)]).toEqual([
      'command-line-gitops-sync',
      '7-network-nat-or-endpoints',
      'notes',
      'notes-1',
    ]);
  });

  it('reports a missing file, a missing heading, and a missing anchor in the same file', () => {
    mkdirSync(join(dir, 'docs'), { recursive: true });
    writeFileSync(join(dir, 'docs', 'other.md'), '# Other\n## Real section\n');
    writeFileSync(
      join(dir, 'docs', 'page.md'),
      [
        '# Page',
        '[fine](other.md#real-section) [fine too](#page) [site](https://x.example/nope.md)',
        '[gone](missing.md)',
        '[no heading](other.md#imagined)',
        '[no anchor here](#nowhere)',
      ].join('\n'),
    );
    expect(brokenLinks(dir, join('docs', 'page.md'))).toEqual([
      `${join('docs', 'page.md')}:3: [gone](missing.md): no file ${join('docs', 'missing.md')}`,
      `${join('docs', 'page.md')}:4: [no heading](other.md#imagined): no heading #imagined in ${join('docs', 'other.md')}`,
      `${join('docs', 'page.md')}:5: [no anchor here](#nowhere): no heading #nowhere in ${join('docs', 'page.md')}`,
    ]);
  });
});
