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
  /**
   * The object id of directory `path` (not the root), or `undefined` when it is none at this commit: the
   * same id at two commits is the same tree below it. A source without ids leaves it out.
   */
  directoryId?(path: string): Promise<string | undefined>;
}

export interface ManifestLimits {
  /** Files read at most (kustomization files included). */
  readonly maxFiles: number;
  /** Bytes of those files read at most. */
  readonly maxBytes: number;
  /** Kustomization entries (`resources`, `bases`, `components`) followed at most, over all kustomizations. */
  readonly maxEntries: number;
  /** Bytes of one kustomization file: its size is essentially its entries, and parsing is costly. */
  readonly maxKustomizationBytes: number;
  /** Tree lookups (directory listings and file reads, found or not) at most. */
  readonly maxLookups: number;
  /** Wall-clock time one source's read may take. */
  readonly maxMillis: number;
  /** Problems (parse errors, missing resources) recorded at most; the rest are counted in one line. */
  readonly maxProblems: number;
}

/**
 * Bounds on one app source's manifest read. Git is written by anyone who can push, so each of these
 * stops a commit from costing unbounded work: without `maxEntries`/`maxLookups` a kustomization
 * listing 200k missing files took 148 s (each entry is two tree lookups and a recorded problem).
 */
export const MAX_MANIFEST_FILES = 1000;
export const MAX_MANIFEST_BYTES = 8 * 1024 * 1024;
export const MAX_KUSTOMIZATION_ENTRIES = 2000;
export const MAX_KUSTOMIZATION_BYTES = 512 * 1024;
export const MAX_TREE_LOOKUPS = 5000;
export const MAX_MANIFEST_READ_MS = 15_000;
export const MAX_MANIFEST_PROBLEMS = 100;

export const DEFAULT_MANIFEST_LIMITS: ManifestLimits = Object.freeze({
  maxFiles: MAX_MANIFEST_FILES,
  maxBytes: MAX_MANIFEST_BYTES,
  maxEntries: MAX_KUSTOMIZATION_ENTRIES,
  maxKustomizationBytes: MAX_KUSTOMIZATION_BYTES,
  maxLookups: MAX_TREE_LOOKUPS,
  maxMillis: MAX_MANIFEST_READ_MS,
  maxProblems: MAX_MANIFEST_PROBLEMS,
});

/** Which bound stopped a read. */
export type ManifestLimit = 'files' | 'bytes' | 'entries' | 'lookups' | 'time';

/** A bound in words, for records ("too many entries: …"). */
export function describeManifestLimit(limit: ManifestLimit, limits: ManifestLimits): string {
  switch (limit) {
    case 'files':
      return `too many files: more than ${limits.maxFiles} manifest files`;
    case 'bytes':
      return `too many bytes: more than ${limits.maxBytes} bytes of manifests`;
    case 'entries':
      return `too many entries: more than ${limits.maxEntries} kustomization entries`;
    case 'lookups':
      return `too many lookups: more than ${limits.maxLookups} tree lookups`;
    case 'time':
      return `too slow: reading took longer than ${limits.maxMillis} ms`;
  }
}

export interface ManifestDocument {
  /** The file the object came from, repo-relative. */
  readonly path: string;
  readonly doc: Record<string, unknown>;
}

export interface ManifestProblem {
  readonly path: string;
  readonly message: string;
  /** The file does not parse (YAML/JSON syntax, or a document that is not an object): Argo CD fails on it too. */
  readonly unparseable?: true;
  /** Where, 1-based, when known. */
  readonly line?: number;
  readonly column?: number;
}

export interface ManifestSet {
  readonly documents: ManifestDocument[];
  /** A Helm chart (or kustomize `helmCharts`): templates were not rendered, so objects may be missing. */
  readonly notRendered: boolean;
  /** Reading stopped at this bound; the documents are the part read before it. */
  readonly limitReached?: ManifestLimit;
  /** `limitReached` in words (also recorded in `errors`). */
  readonly limitMessage?: string;
  /** Per-file problems (parse errors, missing resources); never the file's content. */
  readonly errors: ManifestProblem[];
  /** Entries not followed: remote bases, paths outside the repository, symlinks, submodules. */
  readonly skipped: ManifestProblem[];
  /** The bytes of the manifest files read, when any were: what a reader pool weighs a kept set by. */
  readonly bytes?: number;
}

export interface CollectRequest {
  /** The source's `path` (repo-relative; `''`, `.` and `/` are the root). */
  readonly path: string;
  /** Walk sub-directories of a plain directory (Argo CD's `directory.recurse`); default true. */
  readonly recurse?: boolean;
}
