import { promises as fsp } from 'node:fs';

/** The file system calls isomorphic-git binds (its `FileSystem` wrapper), all promise-returning. */
export type PromiseFs = Pick<
  typeof fsp,
  | 'readFile'
  | 'writeFile'
  | 'mkdir'
  | 'rmdir'
  | 'unlink'
  | 'stat'
  | 'lstat'
  | 'readdir'
  | 'readlink'
  | 'symlink'
>;

/** What isomorphic-git's `fs` option takes: an object with an enumerable `promises`. */
export interface GitFs {
  readonly promises: PromiseFs;
}

/** `<gitdir>/objects/ab/cdef…`: a loose object's file, its fan-out directory captured. */
const LOOSE_OBJECT = /\/objects\/([0-9a-f]{2})\/[0-9a-f]{38}$/;

const frozen = (name: string) => () =>
  Promise.reject(Object.assign(new Error(`git directory is read-only here (${name})`), { code: 'EROFS' }));

/**
 * Node's file system for a git directory no one writes any more (a fetched commit, read by many work
 * items): what isomorphic-git asks on every object read (the git directory's stat, the packs' listing, a
 * loose object's absence) is answered from memory after the first time. isomorphic-git probes the binding on
 * every call with an argument-less `readFile()`; that answer is one error made once, not a new one each time.
 * File contents are not kept (isomorphic-git's own cache holds the packs); misses are, as paths (one error
 * answers them all: isomorphic-git only looks at its `code`). A loose object (`objects/ab/cdef…`) whose
 * fan-out directory the `objects` listing lacks is a miss without a call: a fetch writes packs, so every
 * object isomorphic-git looks for first as a loose file would otherwise cost a failed open. `base`: the file
 * system underneath (node's; tests inject faults).
 */
export function frozenGitFs(base: PromiseFs = fsp): GitFs {
  const missing = new Set<string>();
  const notFound = Object.assign(new Error('no such file in the git directory'), { code: 'ENOENT' });
  const listings = new Map<string, Promise<string[]>>();
  const stats = new Map<string, ReturnType<typeof fsp.stat>>();
  const lstats = new Map<string, ReturnType<typeof fsp.lstat>>();
  const probe = Promise.reject(new TypeError('no path'));
  probe.catch(() => {});
  const remembered = <T>(map: Map<string, Promise<T>>, path: string, read: () => Promise<T>) => {
    let known = map.get(path);
    if (known === undefined) {
      known = read();
      known.catch(() => {});
      map.set(path, known);
    }
    return known;
  };
  const looseDirMissing = async (path: string): Promise<boolean> => {
    const loose = LOOSE_OBJECT.exec(path);
    if (loose === null) return false;
    const objects = path.slice(0, loose.index + '/objects'.length);
    const names = await remembered(listings, objects, () => base.readdir(objects)).catch(() => undefined);
    return names !== undefined && !names.includes(loose[1] as string);
  };
  const promises = {
    readFile: (async (path: unknown, options?: unknown) => {
      if (typeof path !== 'string') return probe;
      if (missing.has(path) || (await looseDirMissing(path))) throw notFound;
      try {
        return await base.readFile(path, options as never);
      } catch (error) {
        if ((error as { code?: string }).code !== 'ENOENT') throw error;
        missing.add(path);
        throw notFound;
      }
    }) as typeof fsp.readFile,
    readdir: ((path: string) => remembered(listings, path, () => base.readdir(path))) as typeof fsp.readdir,
    stat: ((path: string) => remembered(stats, path, () => base.stat(path))) as typeof fsp.stat,
    lstat: ((path: string) => remembered(lstats, path, () => base.lstat(path))) as typeof fsp.lstat,
    readlink: base.readlink,
    writeFile: frozen('writeFile') as typeof fsp.writeFile,
    mkdir: frozen('mkdir') as typeof fsp.mkdir,
    rmdir: frozen('rmdir') as typeof fsp.rmdir,
    unlink: frozen('unlink') as typeof fsp.unlink,
    symlink: frozen('symlink') as typeof fsp.symlink,
  };
  return { promises };
}
