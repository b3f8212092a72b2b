import * as fs from 'node:fs';
import { readBlob, readTree } from 'isomorphic-git';
import type { TreeEntry, TreeSource } from './manifest-types.js';

const ENTRY_TYPES: Record<string, TreeEntry['type']> = {
  '040000': 'tree',
  '100644': 'blob',
  '100755': 'blob',
  '120000': 'symlink',
  '160000': 'submodule',
};

/** The tree of commit `oid` in a local git directory, read through isomorphic-git. */
export function gitTreeSource(options: { gitdir: string; oid: string; cache: object }): TreeSource {
  const { gitdir, oid, cache } = options;
  // Listings are kept for the source's life: a missing path is answered from its parent's listing
  // without walking the tree again (each walk re-reads the commit and every tree on the way).
  const listings = new Map<string, Promise<readonly TreeEntry[] | undefined>>();
  const list = (path: string): Promise<readonly TreeEntry[] | undefined> => {
    let pending = listings.get(path);
    if (pending === undefined) {
      const parent = path === '' ? undefined : listings.get(dirname(path));
      pending = (parent ?? Promise.resolve(undefined)).then(async (siblings) => {
        if (parent !== undefined && siblings?.find((e) => e.name === basename(path))?.type !== 'tree') {
          return undefined;
        }
        return readListing(path);
      });
      listings.set(path, pending);
    }
    return pending;
  };
  const readListing = async (path: string): Promise<readonly TreeEntry[] | undefined> => {
    try {
      const { tree } = await readTree({
        fs,
        gitdir,
        oid,
        cache,
        ...(path === '' ? {} : { filepath: path }),
      });
      return tree.map((entry) => ({ name: entry.path, type: ENTRY_TYPES[entry.mode] ?? 'blob' }));
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  };
  return {
    listDirectory: (path) => list(path),
    async readFile(path) {
      if (path === '') return undefined;
      try {
        const parent = await list(dirname(path));
        const entry = parent?.find((candidate) => candidate.name === basename(path));
        if (entry?.type !== 'blob') return undefined;
        const { blob } = await readBlob({ fs, gitdir, oid, cache, filepath: path });
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
