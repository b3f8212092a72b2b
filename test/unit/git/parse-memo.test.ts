import { describe, expect, it } from 'vitest';
import { parseManifestFile } from '../../../lib/git/manifest-parse.js';
import { createParseMemo } from '../../../lib/git/parse-memo.js';

const configMap = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;

describe('createParseMemo', () => {
  it('answers a text it parsed with that parse, and parses another text afresh', () => {
    const parse = createParseMemo();
    const first = parse(configMap('a'));
    expect(first).toEqual(parseManifestFile(configMap('a')));
    expect(parse(configMap('a'))).toBe(first);
    const other = parse(configMap('b'));
    expect(other).not.toBe(first);
    expect(other.objects[0]?.metadata).toEqual({ name: 'b' });
  });

  it('keeps broken files with their failures, as parsed', () => {
    const parse = createParseMemo();
    const broken = 'kind: ConfigMap\nmetadata: [unclosed\n';
    const once = parse(broken);
    expect(once.failures.length).toBeGreaterThan(0);
    expect(parse(broken)).toBe(once);
  });

  it('drops the least recently used texts past its bound in characters, and keeps no text above a sixteenth of it', () => {
    const named = (i: number) => configMap(`app-${String(i).padStart(3, '0')}`);
    const parse = createParseMemo(named(0).length * 16); // room for 16 of these texts
    const kept = Array.from({ length: 16 }, (_, i) => parse(named(i)));
    expect(parse(named(0))).toBe(kept[0]); // the most recently used now; app-001 is the least
    parse(named(16)); // over the bound: app-001 goes, nothing else
    expect(parse(named(1))).not.toBe(kept[1]);
    expect(parse(named(0))).toBe(kept[0]);
    expect(parse(named(15))).toBe(kept[15]);

    const long = configMap('x'.repeat(named(0).length * 2));
    expect(parse(long)).not.toBe(parse(long));
  });
});
