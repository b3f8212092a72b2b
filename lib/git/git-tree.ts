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
  return {
    async listDirectory(path) {
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
    },
    async readFile(path) {
      if (path === '') return undefined;
      try {
        const parent = await this.listDirectory(dirname(path));
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
