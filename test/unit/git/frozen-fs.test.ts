import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frozenGitFs } from '../../../lib/git/frozen-fs.js';

describe('a read-only file system view of a fetched git directory', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'frozen-fs-'));
    await writeFile(join(dir, 'HEAD'), 'ref: refs/heads/main\n');
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('reads files as they are, and answers a miss from memory after the first', async () => {
    const fs = frozenGitFs();
    expect(String(await fs.promises.readFile(join(dir, 'HEAD'), 'utf8'))).toContain('refs/heads/main');
    const loose = join(dir, 'ab');
    await expect(fs.promises.readFile(loose)).rejects.toMatchObject({ code: 'ENOENT' });
    // Written since (never by the reader's side: the fetch is over): the view still says missing.
    await writeFile(loose, 'x');
    await expect(fs.promises.readFile(loose)).rejects.toMatchObject({ code: 'ENOENT' });
    // Another view reads the disk again.
    expect(String(await frozenGitFs().promises.readFile(loose, 'utf8'))).toBe('x');
  });

  it('answers a loose object whose fan-out directory the objects listing lacks from that listing', async () => {
    const objects = join(dir, 'objects');
    await mkdir(join(objects, 'pack'), { recursive: true });
    await mkdir(join(objects, 'ab'));
    const rest = 'c'.repeat(38);
    await writeFile(join(objects, 'ab', rest), 'packed? no, loose');
    const fs = frozenGitFs();
    // A miss in a directory the listing has: read from disk, found missing.
    await expect(fs.promises.readFile(join(objects, 'ab', 'd'.repeat(38)))).rejects.toMatchObject({
      code: 'ENOENT',
    });
    // A loose object that exists is read.
    expect(String(await fs.promises.readFile(join(objects, 'ab', rest), 'utf8'))).toBe('packed? no, loose');
    // Its fan-out directory written after the listing: the view never opens the file.
    await mkdir(join(objects, 'cd'));
    await writeFile(join(objects, 'cd', rest), 'x');
    await expect(fs.promises.readFile(join(objects, 'cd', rest))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(String(await frozenGitFs().promises.readFile(join(objects, 'cd', rest), 'utf8'))).toBe('x');
  });

  it('lists a directory and stats a path once', async () => {
    const fs = frozenGitFs();
    const before = await fs.promises.readdir(dir);
    await writeFile(join(dir, 'later'), '');
    expect(await fs.promises.readdir(dir)).toEqual(before);
    expect((await fs.promises.stat(dir)).isDirectory()).toBe(true);
    await expect(fs.promises.stat(join(dir, 'none'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses every write, and answers isomorphic-git’s argument-less probe with a rejection', async () => {
    const fs = frozenGitFs();
    await expect(fs.promises.writeFile(join(dir, 'w'), 'x')).rejects.toMatchObject({ code: 'EROFS' });
    await expect(fs.promises.mkdir(join(dir, 'd'))).rejects.toMatchObject({ code: 'EROFS' });
    await expect((fs.promises.readFile as () => Promise<unknown>)()).rejects.toBeInstanceOf(TypeError);
  });
});
