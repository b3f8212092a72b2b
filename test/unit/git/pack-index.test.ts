import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packIndexOids } from '../../../lib/git/commit-fetch.js';

describe('packIndexOids', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pack-index-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists the objects git show-index lists, for an index git wrote', () => {
    const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
    git('init', '-q');
    for (let i = 0; i < 30; i++) writeFileSync(join(dir, `f${i}.yaml`), `n: ${i}\n`);
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'one');
    git('repack', '-adq');
    const packDir = join(dir, '.git', 'objects', 'pack');
    const idx = readdirSync(packDir).find((n) => n.endsWith('.idx')) as string;
    const bytes = readFileSync(join(packDir, idx));
    const shown = execFileSync('git', ['show-index'], { input: bytes, encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((line) => line.split(' ')[1]);
    expect(packIndexOids(bytes)).toEqual(shown);
    expect(shown).toHaveLength(32);
  });

  it('refuses what is not a version-2 index, or one cut short', () => {
    expect(() => packIndexOids(Buffer.alloc(2000))).toThrow('not a version-2 pack index');
    const header = Buffer.alloc(8 + 256 * 4);
    header.writeUInt32BE(0xff744f63, 0);
    header.writeUInt32BE(2, 4);
    header.writeUInt32BE(5, 8 + 255 * 4);
    expect(() => packIndexOids(header)).toThrow('shorter than its object count');
  });
});
