import { posix } from 'node:path';
import {
  KUSTOMIZATION_FILES,
  looksRemote,
  parseKustomization,
  resolveResourceEntry,
} from './kustomization.js';
import { ManifestBudget } from './manifest-budget.js';
import { type ParseFailure, parseManifestFile } from './manifest-parse.js';
import type {
  CollectRequest,
  ManifestLimits,
  ManifestProblem,
  ManifestSet,
  TreeEntry,
  TreeSource,
} from './manifest-types.js';
import { DEFAULT_MANIFEST_LIMITS, describeManifestLimit } from './manifest-types.js';
import type { ManifestParse } from './parse-memo.js';

const MANIFEST_FILE = /\.(ya?ml|json)$/i;

/**
 * Collects the Kubernetes objects an app's source would produce, without rendering: plain YAML/JSON
 * directories, and Kustomize trees followed through `resources`/`bases`/`components` within the repository.
 * A Helm chart (`Chart.yaml`) is reported `notRendered` and none of its files are parsed. Every read is
 * bounded (`ManifestLimits`): the first bound reached stops it, and the set says which. `parse` turns a
 * file's text into objects (a reader pool's memo: `createParseMemo`).
 */
export async function collectManifests(
  source: TreeSource,
  request: CollectRequest,
  limits: Partial<ManifestLimits> = DEFAULT_MANIFEST_LIMITS,
  now: () => number = Date.now,
  parse: ManifestParse = parseManifestFile,
): Promise<ManifestSet> {
  const budget = new ManifestBudget({ ...DEFAULT_MANIFEST_LIMITS, ...limits }, now);
  const walk = new ManifestWalk(budget.meter(source), budget, request.recurse !== false, parse);
  const root = manifestRoot(request.path);
  if (root === undefined) {
    walk.errors.push({ path: request.path, message: 'path is outside the repository' });
    return walk.result();
  }
  const entries = await source.listDirectory(root);
  if (entries === undefined) {
    walk.errors.push({ path: root || '.', message: 'no such directory at this commit' });
    return walk.result();
  }
  if (entries.some((entry) => entry.type === 'blob' && entry.name === 'Chart.yaml')) {
    walk.notRendered = true;
    return walk.result();
  }
  const kustomization = kustomizationFile(entries);
  if (kustomization === undefined) await walk.plain(root, entries);
  else await walk.kustomization(root, kustomization);
  return walk.result();
}

/** The directory an app source's `path` names, repo-relative (`''`: the root); undefined when it is outside. */
export function manifestRoot(path: string): string | undefined {
  const root = resolveResourceEntry('', path.replace(/^\/+/, '') || '.');
  return root.kind === 'local' ? root.path : undefined;
}

class ManifestWalk {
  readonly documents: ManifestSet['documents'] = [];
  readonly errors: ManifestProblem[] = [];
  readonly skipped: ManifestProblem[] = [];
  notRendered = false;
  private readonly visited = new Set<string>();

  constructor(
    private readonly source: TreeSource,
    private readonly budget: ManifestBudget,
    private readonly recurse: boolean,
    private readonly parse: ManifestParse,
  ) {}

  result(): ManifestSet {
    const dropped = this.budget.dropped();
    const errors =
      dropped === 0 ? this.errors : [...this.errors, { path: '.', message: `and ${dropped} more problems` }];
    const bytes = this.budget.bytesTaken();
    const set = {
      documents: this.documents,
      notRendered: this.notRendered,
      errors,
      skipped: this.skipped,
      ...(bytes === 0 ? {} : { bytes }),
    };
    const limit = this.budget.reached;
    if (limit === undefined) return set;
    const limitMessage = describeManifestLimit(limit, this.budget.limits);
    return {
      ...set,
      errors: [...errors, { path: '.', message: `reading stopped: ${limitMessage}` }],
      limitReached: limit,
      limitMessage,
    };
  }

  private problem(list: ManifestProblem[], problem: ManifestProblem): void {
    this.budget.record(list, problem);
  }

  async plain(dir: string, entries: readonly TreeEntry[]): Promise<void> {
    for (const entry of entries) {
      if (this.budget.spent()) return;
      const path = join(dir, entry.name);
      if (entry.type === 'tree') {
        if (this.recurse) await this.plain(path, (await this.source.listDirectory(path)) ?? []);
      } else if (MANIFEST_FILE.test(entry.name)) {
        if (entry.type !== 'blob')
          this.problem(this.skipped, { path, message: `${entry.type} not followed` });
        else if (!this.budget.spent()) await this.file(path, await this.source.readFile(path), 'directory');
      }
    }
  }

  async kustomization(dir: string, name: string): Promise<void> {
    if (this.visited.has(dir) || this.budget.spent()) return;
    this.visited.add(dir);
    const path = join(dir, name);
    const bytes = (await this.source.readFile(path)) ?? new Uint8Array();
    if (!this.budget.fitsKustomization(bytes.byteLength)) {
      const limit = this.budget.limits.maxKustomizationBytes;
      this.errors.push({
        path,
        message: `too many entries: the file is ${bytes.byteLength} bytes (limit ${limit})`,
      });
      return;
    }
    if (!this.budget.takeFile(bytes.byteLength)) return;
    const kustomization = parseKustomization(Buffer.from(bytes).toString('utf8'), this.parse);
    for (const failure of kustomization.failures) this.problem(this.errors, unparseable(path, failure));
    const rest = kustomization.errors.slice(kustomization.failures.length);
    for (const message of rest) this.problem(this.errors, { path, message });
    if (kustomization.inflatesHelmCharts) this.notRendered = true;
    // Refused whole, before any lookup: following part of an oversized list would still cost its lookups.
    if (!this.budget.fitsEntries(kustomization.entries.length)) {
      this.errors.push({ path, message: `too many entries: ${kustomization.entries.length} listed` });
      return;
    }
    for (const entry of kustomization.entries) {
      if (!this.budget.takeEntry()) {
        this.errors.push({ path, message: `too many entries: ${kustomization.entries.length} listed` });
        return;
      }
      await this.resource(dir, entry);
    }
  }

  private async resource(dir: string, entry: string): Promise<void> {
    const target = resolveResourceEntry(dir, entry);
    if (target.kind !== 'local') {
      const message = target.kind === 'remote' ? 'remote resource not fetched' : 'outside the repository';
      this.problem(this.skipped, { path: entry, message });
      return;
    }
    const entries = await this.source.listDirectory(target.path);
    if (entries !== undefined) {
      const nested = kustomizationFile(entries);
      if (nested === undefined) {
        this.problem(this.errors, {
          path: target.path,
          message: 'directory resource without a kustomization',
        });
      } else await this.kustomization(target.path, nested);
      return;
    }
    if (this.budget.spent()) return;
    const bytes = await this.source.readFile(target.path);
    // A lookup refused by the budget is not a missing file.
    if (this.budget.spent() && bytes === undefined) return;
    if (bytes !== undefined) await this.file(target.path, bytes, 'kustomize');
    else if (looksRemote(entry))
      this.problem(this.skipped, { path: entry, message: 'remote resource not fetched' });
    else this.problem(this.errors, { path: target.path, message: `resource ${entry} not found` });
  }

  private async file(
    path: string,
    bytes: Uint8Array | undefined,
    by: 'directory' | 'kustomize',
  ): Promise<void> {
    if (bytes === undefined) {
      if (!this.budget.spent()) this.problem(this.errors, { path, message: 'file not found at this commit' });
      return;
    }
    if (!this.budget.takeFile(bytes.byteLength)) return;
    const text = Buffer.from(bytes).toString('utf8');
    const parsed = this.parse(text);
    for (const doc of parsed.objects) this.documents.push({ path, doc });
    if (parsed.failures.length === 0) return;
    if (by === 'directory' && !argoCdFailsOn(path, text, parsed.objects.length)) {
      for (const { message } of parsed.failures) {
        this.problem(this.errors, { path, message: `${message} (Argo CD ignores it: not a manifest)` });
      }
      return;
    }
    for (const failure of parsed.failures) this.problem(this.errors, unparseable(path, failure));
  }
}

/**
 * Whether Argo CD's directory walk fails on a file that does not parse (repo-server's `findManifests`): a JSON
 * file always; a YAML file when objects parsed before the error, or when it looks like a manifest (it holds
 * `apiVersion:`, `kind:` and `metadata:`). Any other broken YAML file it skips as an unrelated file.
 * Kustomize fails on every resource it lists that does not parse.
 */
export function argoCdFailsOn(path: string, text: string, objects: number): boolean {
  if (/\.json$/i.test(path) || objects > 0) return true;
  return text.includes('apiVersion:') && text.includes('kind:') && text.includes('metadata:');
}

function unparseable(path: string, failure: ParseFailure): ManifestProblem {
  const { message, line, column } = failure;
  return {
    path,
    message,
    unparseable: true,
    ...(line === undefined ? {} : { line }),
    ...(column === undefined ? {} : { column }),
  };
}

function kustomizationFile(entries: readonly TreeEntry[]): string | undefined {
  return KUSTOMIZATION_FILES.find((name) =>
    entries.some((entry) => entry.type === 'blob' && entry.name === name),
  );
}

function join(dir: string, name: string): string {
  return dir === '' ? name : posix.join(dir, name);
}
