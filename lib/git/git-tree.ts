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

/** A directory's entries as read (its answer to `listDirectory`), and each by name with its object. */
interface Listing {
  readonly entries: readonly TreeEntry[];
  readonly byName: ReadonlyMap<string, ListedEntry>;
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
  // Listings are kept for the source's life: a missing path is answered from its parent's listing. Each
  // is indexed by name: a directory of a monorepo's thousand apps is looked up once per app.
  const listings = new Map<string, Promise<Listing | undefined>>();
  const list = (path: string): Promise<Listing | undefined> => {
    let pending = listings.get(path);
    if (pending === undefined) {
      pending =
        path === ''
          ? readListing(oid)
          : entryAt(path).then((entry) => (entry?.type === 'tree' ? readListing(entry.oid) : undefined));
      listings.set(path, pending);
    }
    return pending;
  };
  const entryAt = async (path: string) => (await list(dirname(path)))?.byName.get(basename(path));
  // `of`: the commit (the root) or a tree's id; isomorphic-git peels a commit to its tree.
  const readListing = async (of: string): Promise<Listing | undefined> => {
    try {
      const { tree } = await readTree({ fs, gitdir, oid: of, cache });
      const entries: TreeEntry[] = [];
      const byName = new Map<string, ListedEntry>();
      for (const { path: name, mode, oid: id } of tree) {
        const type = ENTRY_TYPES[mode] ?? 'blob';
        entries.push({ name, type });
        byName.set(name, { name, type, oid: id });
      }
      return { entries, byName };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  };
  return {
    listDirectory: async (path) => (await list(path))?.entries,
    async directoryId(path) {
      if (path === '') return undefined;
      const entry = await entryAt(path);
      return entry?.type === 'tree' ? entry.oid : undefined;
    },
    async readFile(path) {
      if (path === '') return undefined;
      try {
        const entry = await entryAt(path);
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
