import type { ManifestLimit, ManifestLimits, ManifestProblem, TreeSource } from './manifest-types.js';

/**
 * What one manifest read has spent: files, bytes, kustomization entries, tree lookups and time, and the
 * first bound it reached. Once a bound is reached every further step is refused, so a read ends in at
 * most `maxLookups` tree calls whatever the commit holds.
 */
export class ManifestBudget {
  reached: ManifestLimit | undefined;
  private files = 0;
  private bytes = 0;
  private entries = 0;
  private lookups = 0;
  private problems = 0;
  private readonly deadline: number;

  constructor(
    readonly limits: ManifestLimits,
    private readonly now: () => number,
  ) {
    this.deadline = now() + limits.maxMillis;
  }

  /** True once no further step may be taken. */
  spent(): boolean {
    if (this.reached === undefined) {
      if (this.files >= this.limits.maxFiles) this.reached = 'files';
      else if (this.lookups >= this.limits.maxLookups) this.reached = 'lookups';
      else if (this.now() >= this.deadline) this.reached = 'time';
    }
    return this.reached !== undefined;
  }

  /** Counts one more file of `size` bytes; false (and the bound recorded) when that would pass one. */
  takeFile(size: number): boolean {
    if (this.spent()) return false;
    if (this.bytes + size > this.limits.maxBytes) {
      this.reached = 'bytes';
      return false;
    }
    this.files += 1;
    this.bytes += size;
    return true;
  }

  /** Refuses a kustomization listing more entries than are left (nothing of it is followed then). */
  fitsEntries(count: number): boolean {
    if (this.entries + count <= this.limits.maxEntries) return true;
    this.reached = 'entries';
    return false;
  }

  /** Refuses a kustomization file larger than `maxKustomizationBytes` before it is parsed. */
  fitsKustomization(size: number): boolean {
    if (size <= this.limits.maxKustomizationBytes) return true;
    this.reached = 'entries';
    return false;
  }

  /** Counts one more kustomization entry; false (and `entries` recorded) past the bound. */
  takeEntry(): boolean {
    if (this.spent()) return false;
    if (this.entries >= this.limits.maxEntries) {
      this.reached = 'entries';
      return false;
    }
    this.entries += 1;
    return true;
  }

  /** Records a problem unless `maxProblems` are already kept; returns how many were dropped so far. */
  record(list: ManifestProblem[], problem: ManifestProblem): void {
    this.problems += 1;
    if (this.problems <= this.limits.maxProblems) list.push(problem);
  }

  /** Bytes of the manifest files taken so far. */
  bytesTaken(): number {
    return this.bytes;
  }

  /** Problems counted beyond `maxProblems`. */
  dropped(): number {
    return Math.max(0, this.problems - this.limits.maxProblems);
  }

  /** The tree, with every lookup counted and refused once the budget is spent. */
  meter(source: TreeSource): TreeSource {
    return {
      listDirectory: async (path) => {
        if (this.spent()) return undefined;
        this.lookups += 1;
        return source.listDirectory(path);
      },
      readFile: async (path) => {
        if (this.spent()) return undefined;
        this.lookups += 1;
        return source.readFile(path);
      },
    };
  }
}
