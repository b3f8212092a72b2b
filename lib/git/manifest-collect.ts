import { posix } from 'node:path';
import {
  KUSTOMIZATION_FILES,
  looksRemote,
  parseKustomization,
  resolveResourceEntry,
} from './kustomization.js';
import { parseManifestFile } from './manifest-parse.js';
import type {
  CollectRequest,
  ManifestLimits,
  ManifestProblem,
  ManifestSet,
  TreeEntry,
  TreeSource,
} from './manifest-types.js';
import { DEFAULT_MANIFEST_LIMITS } from './manifest-types.js';

const MANIFEST_FILE = /\.(ya?ml|json)$/i;

/**
 * Collects the Kubernetes objects an app's source would produce, without rendering: plain YAML/JSON
 * directories, and Kustomize trees followed through `resources`/`bases`/`components` within the repository.
 * A Helm chart (`Chart.yaml`) is reported `notRendered` and none of its files are parsed.
 */
export async function collectManifests(
  source: TreeSource,
  request: CollectRequest,
  limits: ManifestLimits = DEFAULT_MANIFEST_LIMITS,
): Promise<ManifestSet> {
  const walk = new ManifestWalk(source, limits, request.recurse !== false);
  const root = resolveResourceEntry('', request.path.replace(/^\/+/, '') || '.');
  if (root.kind !== 'local') {
    walk.errors.push({ path: request.path, message: 'path is outside the repository' });
    return walk.result();
  }
  const entries = await source.listDirectory(root.path);
  if (entries === undefined) {
    walk.errors.push({ path: root.path || '.', message: 'no such directory at this commit' });
    return walk.result();
  }
  if (entries.some((entry) => entry.type === 'blob' && entry.name === 'Chart.yaml')) {
    walk.notRendered = true;
    return walk.result();
  }
  const kustomization = kustomizationFile(entries);
  if (kustomization === undefined) await walk.plain(root.path, entries);
  else await walk.kustomization(root.path, kustomization);
  return walk.result();
}

class ManifestWalk {
  readonly documents: ManifestSet['documents'] = [];
  readonly errors: ManifestProblem[] = [];
  readonly skipped: ManifestProblem[] = [];
  notRendered = false;
  private limitReached: 'files' | 'bytes' | undefined;
  private files = 0;
  private bytes = 0;
  private readonly visited = new Set<string>();

  constructor(
    private readonly source: TreeSource,
    private readonly limits: ManifestLimits,
    private readonly recurse: boolean,
  ) {}

  result(): ManifestSet {
    const set = {
      documents: this.documents,
      notRendered: this.notRendered,
      errors: this.errors,
      skipped: this.skipped,
    };
    return this.limitReached === undefined ? set : { ...set, limitReached: this.limitReached };
  }

  async plain(dir: string, entries: readonly TreeEntry[]): Promise<void> {
    for (const entry of entries) {
      if (this.limitReached !== undefined) return;
      const path = join(dir, entry.name);
      if (entry.type === 'tree') {
        if (this.recurse) await this.plain(path, (await this.source.listDirectory(path)) ?? []);
      } else if (MANIFEST_FILE.test(entry.name)) {
        if (entry.type !== 'blob') this.skipped.push({ path, message: `${entry.type} not followed` });
        else if (!this.full()) await this.file(path, await this.source.readFile(path));
      }
    }
  }

  async kustomization(dir: string, name: string): Promise<void> {
    if (this.visited.has(dir) || this.full()) return;
    this.visited.add(dir);
    const path = join(dir, name);
    const bytes = (await this.source.readFile(path)) ?? new Uint8Array();
    if (!this.take(bytes.byteLength)) return;
    const kustomization = parseKustomization(Buffer.from(bytes).toString('utf8'));
    for (const message of kustomization.errors) this.errors.push({ path, message });
    if (kustomization.inflatesHelmCharts) this.notRendered = true;
    for (const entry of kustomization.entries) {
      if (this.limitReached !== undefined) return;
      await this.resource(dir, entry);
    }
  }

  private async resource(dir: string, entry: string): Promise<void> {
    const target = resolveResourceEntry(dir, entry);
    if (target.kind !== 'local') {
      const message = target.kind === 'remote' ? 'remote resource not fetched' : 'outside the repository';
      this.skipped.push({ path: entry, message });
      return;
    }
    const entries = await this.source.listDirectory(target.path);
    if (entries !== undefined) {
      const nested = kustomizationFile(entries);
      if (nested === undefined) {
        this.errors.push({ path: target.path, message: 'directory resource without a kustomization' });
      } else await this.kustomization(target.path, nested);
      return;
    }
    if (this.full()) return;
    const bytes = await this.source.readFile(target.path);
    if (bytes !== undefined) await this.file(target.path, bytes);
    else if (looksRemote(entry)) this.skipped.push({ path: entry, message: 'remote resource not fetched' });
    else this.errors.push({ path: target.path, message: `resource ${entry} not found` });
  }

  private async file(path: string, bytes: Uint8Array | undefined): Promise<void> {
    if (bytes === undefined) {
      this.errors.push({ path, message: 'file not found at this commit' });
      return;
    }
    if (!this.take(bytes.byteLength)) return;
    const parsed = parseManifestFile(Buffer.from(bytes).toString('utf8'));
    for (const doc of parsed.objects) this.documents.push({ path, doc });
    for (const message of parsed.errors) this.errors.push({ path, message });
  }

  /** True once no further file may be read (so none is fetched from the tree in vain). */
  private full(): boolean {
    if (this.limitReached === undefined && this.files >= this.limits.maxFiles) this.limitReached = 'files';
    return this.limitReached !== undefined;
  }

  /** Counts one more file of `size` bytes; false (and the limit recorded) when that would pass a bound. */
  private take(size: number): boolean {
    if (this.full()) return false;
    if (this.bytes + size > this.limits.maxBytes) {
      this.limitReached = 'bytes';
      return false;
    }
    this.files += 1;
    this.bytes += size;
    return true;
  }
}

function kustomizationFile(entries: readonly TreeEntry[]): string | undefined {
  return KUSTOMIZATION_FILES.find((name) =>
    entries.some((entry) => entry.type === 'blob' && entry.name === name),
  );
}

function join(dir: string, name: string): string {
  return dir === '' ? name : posix.join(dir, name);
}
