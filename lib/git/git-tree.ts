import * as nodeFs from 'node:fs';
import { readBlob, readTree } from 'isomorphic-git';
import type { GitFs } from './frozen-fs.js';
import type { TreeEntry, TreeSource } from './manifest-types.js';

const ENTRY_TYPES: Record<string, TreeEntry['type']> = {
  '040000': 'tree',
  '100644': 'blob',
  '100755': 'blob',
  '120000': 'symlink',
  '160000': 'submodule',
};

/** A listing's entry with the object it names, so its children are read by id, not by walking the path. */
interface ListedEntry extends TreeEntry {
  readonly oid: string;
}

/**
 * The tree of commit `oid` in a local git directory, read through isomorphic-git. Each directory is read
 * once, by the object id its parent's listing gave (the root from the commit), and each file by its blob's
 * id: one object read each, where a read by path walks the commit and every tree above it again (and each
 * object read costs isomorphic-git a look at the loose objects and the packs on disk).
 */
export function gitTreeSource(options: {
  gitdir: string;
  oid: string;
  cache: object;
  /** The file system it is read through (default node's; `frozenGitFs()` for a directory no one writes). */
  fs?: GitFs;
}): TreeSource {
  const { gitdir, oid, cache, fs = nodeFs } = options;
  // Listings are kept for the source's life: a missing path is answered from its parent's listing.
  const listings = new Map<string, Promise<readonly ListedEntry[] | undefined>>();
  const list = (path: string): Promise<readonly ListedEntry[] | undefined> => {
    let pending = listings.get(path);
    if (pending === undefined) {
      pending =
        path === ''
          ? readListing(oid)
          : list(dirname(path)).then((siblings) => {
              const entry = siblings?.find((e) => e.name === basename(path));
              return entry?.type === 'tree' ? readListing(entry.oid) : undefined;
            });
      listings.set(path, pending);
    }
    return pending;
  };
  // `of`: the commit (the root) or a tree's id; isomorphic-git peels a commit to its tree.
  const readListing = async (of: string): Promise<readonly ListedEntry[] | undefined> => {
    try {
      const { tree } = await readTree({ fs, gitdir, oid: of, cache });
      return tree.map((entry) => ({
        name: entry.path,
        type: ENTRY_TYPES[entry.mode] ?? 'blob',
        oid: entry.oid,
      }));
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  };
  const entries = (listing: readonly ListedEntry[] | undefined) =>
    listing?.map(({ name, type }) => ({ name, type }));
  return {
    listDirectory: async (path) => entries(await list(path)),
    async readFile(path) {
      if (path === '') return undefined;
      try {
        const parent = await list(dirname(path));
        const entry = parent?.find((candidate) => candidate.name === basename(path));
        if (entry?.type !== 'blob') return undefined;
        const { blob } = await readBlob({ fs, gitdir, oid: entry.oid, cache });
        return blob;
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
  };
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'NotFoundError' || code === 'ObjectTypeError';
}

function dirname(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
