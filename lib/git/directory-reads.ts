import type { TreeSource } from './manifest-types.js';

/**
 * A commit's tree as a read of directory `root` sees it, noting whether the read looked outside `root` (a
 * kustomization's `../base`, a resource in a shared folder). A manifest set read only inside `root` depends
 * on nothing but the tree below it: at another commit where `root` has the same object id the same read
 * gives the same set, so a reader pool keeps such a set by that id as well as by the commit. A push changes
 * a few directories of a monorepo; the next commit's reads of the others are then answered without reading
 * a file.
 */
export function readWithin(
  source: TreeSource,
  root: string,
): { readonly source: TreeSource; stayedInside(): boolean } {
  let outside = false;
  const look = (path: string) => {
    if (!isWithin(path, root)) outside = true;
  };
  return {
    source: {
      listDirectory(path) {
        look(path);
        return source.listDirectory(path);
      },
      readFile(path) {
        look(path);
        return source.readFile(path);
      },
    },
    stayedInside: () => !outside,
  };
}

/** Repo-relative `path` is directory `root` or lies under it (`apps/web` holds `apps/web/x`, not `apps/webx`). */
export function isWithin(path: string, root: string): boolean {
  return path === root || path.startsWith(`${root}/`);
}
