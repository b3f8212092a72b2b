import { describe, expect, it } from 'vitest';
import { createManifestSets, type SetRead } from '../../../lib/git/manifest-sets.js';
import type { ManifestSet, TreeSource } from '../../../lib/git/manifest-types.js';

// What a reader pool keeps of its reads is bounded by count and by the bytes of the files they were read
// from, least recently used out first.

const SHA = 'a'.repeat(40);
const read = (path: string, sha = SHA): SetRead => ({
  repoKey: 'github.com/org/repo',
  sha,
  path,
  readKey: `:${path}`,
});
const setOf = (bytes: number): ManifestSet => ({
  documents: [],
  notRendered: false,
  errors: [],
  skipped: [],
  bytes,
});
const keptPaths = (sets: ReturnType<typeof createManifestSets>, paths: readonly string[]) =>
  paths.filter((path) => sets.known(read(path)) !== undefined);

describe("a reader pool's kept manifest sets", () => {
  it('keep no more bytes of files than their bound, the least recently used out first', async () => {
    const sets = createManifestSets({ sets: 100, bytes: 1_000 });
    for (const path of ['a', 'b']) sets.remember(read(path), Promise.resolve(setOf(400)));
    await Promise.resolve();
    // a is used, so b is the oldest when c makes 1,200 bytes.
    expect(sets.known(read('a'))).toBeDefined();
    sets.remember(read('c'), Promise.resolve(setOf(400)));
    await Promise.resolve();
    expect(keptPaths(sets, ['a', 'b', 'c'])).toEqual(['a', 'c']);
  });

  it('weigh a read in flight once it is read', async () => {
    const sets = createManifestSets({ sets: 100, bytes: 1_000 });
    sets.remember(read('a'), Promise.resolve(setOf(600)));
    let finish: (set: ManifestSet) => void = () => undefined;
    sets.remember(read('b'), new Promise<ManifestSet>((resolve) => (finish = resolve)));
    await Promise.resolve();
    // b weighs nothing while it is read: a stays.
    expect(keptPaths(sets, ['a', 'b'])).toEqual(['a', 'b']);
    finish(setOf(600));
    await new Promise((resolve) => setImmediate(resolve));
    // Read, b makes 1,200 bytes: a, used least recently (before b's lookup), goes.
    expect(keptPaths(sets, ['b', 'a'])).toEqual(['b']);
  });

  it('keep no more sets than their count, and not a set larger than the whole bound', async () => {
    const sets = createManifestSets({ sets: 2, bytes: 1_000 });
    for (const path of ['a', 'b', 'c']) sets.remember(read(path), Promise.resolve(setOf(10)));
    sets.remember(read('huge'), Promise.resolve(setOf(5_000)));
    await Promise.resolve();
    expect(keptPaths(sets, ['a', 'b', 'c', 'huge'])).toEqual(['c']);
  });

  it('drop a failed read, so the next one reads again', async () => {
    const sets = createManifestSets({ sets: 10, bytes: 1_000 });
    const failed = Promise.reject(new Error('host down'));
    sets.remember(read('a'), failed);
    await failed.catch(() => undefined);
    await Promise.resolve();
    expect(sets.known(read('a'))).toBeUndefined();
  });

  it('keep a directory by its tree id within the same bytes bound', async () => {
    const sets = createManifestSets({ sets: 100, bytes: 1_000 });
    const tree = (id: string): TreeSource => ({
      listDirectory: async () => [],
      readFile: async () => undefined,
      directoryId: async () => id,
    });
    let reads = 0;
    const collect = async () => {
      reads += 1;
      return setOf(600);
    };
    await sets.collect(read('apps/x'), tree('tree-x'), collect);
    await sets.collect(read('apps/y'), tree('tree-y'), collect);
    // Another commit where both directories are the same trees: y is kept, x (600 + 600 bytes) is not.
    const next = 'b'.repeat(40);
    await sets.collect(read('apps/y', next), tree('tree-y'), collect);
    await sets.collect(read('apps/x', next), tree('tree-x'), collect);
    expect(reads).toBe(3);
  });
});
