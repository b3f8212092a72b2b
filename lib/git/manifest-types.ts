export interface TreeEntry {
  readonly name: string;
  readonly type: 'blob' | 'tree' | 'symlink' | 'submodule';
}

/** Read access to one commit's tree; paths are repo-relative POSIX, `''` is the root. */
export interface TreeSource {
  /** The entries of a directory, or `undefined` when `path` is not a directory at this commit. */
  listDirectory(path: string): Promise<readonly TreeEntry[] | undefined>;
  /** A file's bytes, or `undefined` when `path` is not a (regular) file at this commit. */
  readFile(path: string): Promise<Uint8Array | undefined>;
}

export interface ManifestLimits {
  /** Files read at most (kustomization files included). */
  readonly maxFiles: number;
  /** Bytes of those files read at most. */
  readonly maxBytes: number;
}

export const DEFAULT_MANIFEST_LIMITS: ManifestLimits = Object.freeze({
  maxFiles: 1000,
  maxBytes: 8 * 1024 * 1024,
});

export interface ManifestDocument {
  /** The file the object came from, repo-relative. */
  readonly path: string;
  readonly doc: Record<string, unknown>;
}

export interface ManifestProblem {
  readonly path: string;
  readonly message: string;
}

export interface ManifestSet {
  readonly documents: ManifestDocument[];
  /** A Helm chart (or kustomize `helmCharts`): templates were not rendered, so objects may be missing. */
  readonly notRendered: boolean;
  /** Reading stopped at this bound; the documents are the part read before it. */
  readonly limitReached?: 'files' | 'bytes';
  /** Per-file problems (parse errors, missing resources); never the file's content. */
  readonly errors: ManifestProblem[];
  /** Entries not followed: remote bases, paths outside the repository, symlinks, submodules. */
  readonly skipped: ManifestProblem[];
}

export interface CollectRequest {
  /** The source's `path` (repo-relative; `''`, `.` and `/` are the root). */
  readonly path: string;
  /** Walk sub-directories of a plain directory (Argo CD's `directory.recurse`); default true. */
  readonly recurse?: boolean;
}
