import { posix } from 'node:path';
import { type ParseFailure, parseManifestFile } from './manifest-parse.js';
import type { ManifestParse } from './parse-memo.js';

/** The names kustomize looks for, in its order. */
export const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'] as const;

/** Fields whose entries are files or kustomization directories whose objects end up in the output. */
const RESOURCE_FIELDS = ['resources', 'bases', 'components'] as const;

export interface Kustomization {
  /** Entries of `resources`, `bases` (deprecated) and `components`, as written. */
  readonly entries: readonly string[];
  /** `helmCharts` inflation: its output is not rendered here. */
  readonly inflatesHelmCharts: boolean;
  readonly errors: readonly string[];
  /** The kustomization file itself does not parse (its messages are also in `errors`). */
  readonly failures: readonly ParseFailure[];
}

/** Reads the parts of a kustomization that name other inputs; patches and generators are ignored. */
export function parseKustomization(text: string, parse: ManifestParse = parseManifestFile): Kustomization {
  const parsed = parse(text);
  const [root] = parsed.objects;
  if (root === undefined) {
    const errors = [...parsed.errors, 'empty kustomization'];
    return { entries: [], inflatesHelmCharts: false, errors, failures: parsed.failures };
  }
  const entries: string[] = [];
  const errors = [...parsed.errors];
  for (const field of RESOURCE_FIELDS) {
    const list = root[field];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) {
      errors.push(`${field} is not a list`);
      continue;
    }
    for (const entry of list) {
      if (typeof entry === 'string' && entry.trim() !== '') entries.push(entry.trim());
      else errors.push(`${field} has an entry that is not a path`);
    }
  }
  const charts = root.helmCharts;
  const inflatesHelmCharts = Array.isArray(charts) && charts.length > 0;
  return { entries, inflatesHelmCharts, errors, failures: parsed.failures };
}

export type ResourceTarget =
  | { readonly kind: 'local'; readonly path: string }
  | { readonly kind: 'remote' }
  | { readonly kind: 'outside' };

/**
 * Where a kustomization entry points, from the kustomization's directory `dir` (repo-relative, `''` for
 * the root). URLs and go-getter forms are remote; a path leaving the repository root is `outside`.
 * A host-like path (`github.com/org/repo//dir`) is local here and only judged remote when absent.
 */
export function resolveResourceEntry(dir: string, entry: string): ResourceTarget {
  if (/^[a-z][a-z0-9+.-]*::/i.test(entry) || entry.includes('://') || /^[\w.-]+@[\w.-]+:/.test(entry)) {
    return { kind: 'remote' };
  }
  if (entry.startsWith('/')) return { kind: 'outside' };
  const joined = posix.normalize(posix.join(dir === '' ? '.' : dir, entry.split('?')[0] ?? entry));
  if (joined === '..' || joined.startsWith('../')) return { kind: 'outside' };
  return { kind: 'local', path: joined === '.' ? '' : joined.replace(/\/+$/, '') };
}

/** A missing local entry that reads like `host.tld/org/repo…` is a remote base kustomize would clone. */
export function looksRemote(entry: string): boolean {
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+\/[^/]/i.test(entry) || entry.includes('?ref=') || entry.includes('//');
}
