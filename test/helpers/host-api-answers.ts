/**
 * Answers of the Bitbucket Cloud, Bitbucket Server and Azure DevOps REST APIs used for changed files,
 * shaped after each host's documented schema (fields the client does not read are kept to look real).
 */

type DiffstatStatus = 'added' | 'removed' | 'modified' | 'renamed';

/** Bitbucket Cloud `paginated_diffstats`: `values` of `diffstat`, `next` while more pages follow. */
export function bitbucketDiffstatPage(
  entries: readonly { status: DiffstatStatus; old?: string; new?: string }[],
  options: { next?: string; page?: number } = {},
): Record<string, unknown> {
  const file = (path: string | undefined) =>
    path === undefined
      ? null
      : {
          path,
          type: 'commit_file',
          escaped_path: path,
          links: { self: { href: `https://api.bitbucket.org/x/${path}` } },
        };
  return {
    pagelen: 500,
    page: options.page ?? 1,
    size: entries.length,
    values: entries.map((e) => ({
      type: 'diffstat',
      status: e.status,
      lines_added: 1,
      lines_removed: 0,
      old: file(e.old),
      new: file(e.new),
    })),
    ...(options.next === undefined ? {} : { next: options.next }),
  };
}

type ServerChangeType = 'ADD' | 'MODIFY' | 'DELETE' | 'MOVE' | 'COPY';

/** Bitbucket Server `GET …/changes`: a paged list of `RestChange`, `isLastPage` / `nextPageStart`. */
export function bitbucketServerChangesPage(
  changes: readonly { type: ServerChangeType; path: string; srcPath?: string }[],
  options: { start?: number; nextPageStart?: number } = {},
): Record<string, unknown> {
  const path = (text: string) => {
    const components = text.split('/');
    const name = components.at(-1) ?? text;
    return { components, parent: components.slice(0, -1).join('/'), name, toString: text };
  };
  return {
    fromHash: null,
    toHash: 'b'.repeat(40),
    properties: {},
    values: changes.map((c, i) => ({
      contentId: `${i}`.padStart(40, 'c'),
      type: c.type,
      path: path(c.path),
      ...(c.srcPath === undefined ? {} : { srcPath: path(c.srcPath) }),
      nodeType: 'FILE',
      executable: false,
      percentUnchanged: -1,
    })),
    size: changes.length,
    isLastPage: options.nextPageStart === undefined,
    start: options.start ?? 0,
    limit: 1000,
    ...(options.nextPageStart === undefined ? {} : { nextPageStart: options.nextPageStart }),
  };
}

/** Azure DevOps `GitCommitDiffs` (`GET …/diffs/commits`). */
export function azureDiffs(
  changes: readonly { changeType: string; path: string; isFolder?: boolean; originalPath?: string }[],
): Record<string, unknown> {
  return {
    allChangesIncluded: true,
    changeCounts: { Edit: changes.length },
    changes: changes.map((c) => ({
      item: {
        objectId: 'd'.repeat(40),
        gitObjectType: c.isFolder === true ? 'tree' : 'blob',
        path: c.path,
        ...(c.isFolder === true ? { isFolder: true } : {}),
        url: `https://dev.azure.com/org/project/_apis/git/repositories/repo/items${c.path}`,
      },
      changeType: c.changeType,
      ...(c.originalPath === undefined ? {} : { originalPath: c.originalPath }),
    })),
    commonCommit: 'a'.repeat(40),
    baseCommit: 'a'.repeat(40),
    targetCommit: 'b'.repeat(40),
    aheadCount: 1,
    behindCount: 0,
  };
}
