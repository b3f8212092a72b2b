import { describe, expect, it } from 'vitest';
import { parseManifestFile } from '../../../lib/git/manifest-parse.js';

describe('parseManifestFile', () => {
  it('returns every document of a multi-document file and skips empty ones', () => {
    const parsed = parseManifestFile('kind: A\n---\n# only a comment\n---\nkind: B\n');
    expect(parsed.objects.map((o) => o.kind)).toEqual(['A', 'B']);
    expect(parsed.errors).toEqual([]);
  });

  it('unpacks a List and a JSON array', () => {
    expect(parseManifestFile('kind: List\nitems:\n- kind: A\n- kind: B\n').objects).toHaveLength(2);
    expect(parseManifestFile('[{"kind":"A"},{"kind":"B"}]').objects.map((o) => o.kind)).toEqual(['A', 'B']);
  });

  it('reports a broken document by position without quoting its content, and keeps the others', () => {
    const parsed = parseManifestFile('kind: A\n---\npassword: hunter2\n  bad: x\n---\nkind: C\n');
    expect(parsed.objects.map((o) => o.kind)).toEqual(['A', 'C']);
    expect(parsed.errors).toHaveLength(1);
    expect(parsed.errors[0]).toMatch(/^document 2: [A-Z_]+ at line \d+, column \d+$/);
    expect(parsed.errors.join()).not.toContain('hunter2');
  });

  it('reports a scalar document as not a Kubernetes object', () => {
    expect(parseManifestFile('just text\n').errors).toEqual([
      'document 1: not a Kubernetes object (a string)',
    ]);
  });

  it('refuses a document that expands aliases beyond the bound (a billion-laughs file)', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 12; i++)
      bomb.push(
        `${'b'.repeat(i + 1)}: &${'b'.repeat(i + 1)} [${Array(9)
          .fill(i === 0 ? '*a' : `*${'b'.repeat(i)}`)
          .join(', ')}]`,
      );
    const parsed = parseManifestFile(`${bomb.join('\n')}\n`);
    expect(parsed.objects).toEqual([]);
    expect(parsed.errors).toEqual(['document 1: too many aliases or an unresolvable alias']);
  });
});
