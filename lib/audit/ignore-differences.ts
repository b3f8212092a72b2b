import { RE2JS } from 're2js';
import { isRecord, stringList, text } from './k8s-object.js';

/** The HPA controller writes `spec.replicas` through the scale subresource under this field manager. */
export const HPA_FIELD_MANAGER = 'kube-controller-manager';

const REPLICAS_POINTERS = ['/spec/replicas', '/spec'] as const;
const REPLICAS_JQ = ['.spec.replicas', '.spec', '.spec["replicas"]'] as const;

export interface IgnoreTarget {
  readonly group: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

export interface ReplicasCoverage {
  readonly source: 'application' | 'system';
  readonly field: 'jsonPointers' | 'jqPathExpressions' | 'managedFieldsManagers';
  readonly value: string;
}

/**
 * Whether an ignoreDifferences entry leaves the target's `/spec/replicas` alone, matched as Argo CD's
 * ignore normalizer does: group and kind are globs, name and namespace exact or empty for any.
 */
export function replicasCoverage(
  entries: readonly { readonly source: ReplicasCoverage['source']; readonly entry: unknown }[],
  target: IgnoreTarget,
): ReplicasCoverage | undefined {
  for (const { source, entry } of entries) {
    if (!isRecord(entry) || !matchesTarget(entry, target)) continue;
    const pointer = stringList(entry.jsonPointers).find((p) =>
      (REPLICAS_POINTERS as readonly string[]).includes(p),
    );
    if (pointer !== undefined) return { source, field: 'jsonPointers', value: pointer };
    const jq = stringList(entry.jqPathExpressions).find((e) =>
      (REPLICAS_JQ as readonly string[]).includes(e.replace(/\s+/g, '')),
    );
    if (jq !== undefined) return { source, field: 'jqPathExpressions', value: jq };
    if (stringList(entry.managedFieldsManagers).includes(HPA_FIELD_MANAGER)) {
      return { source, field: 'managedFieldsManagers', value: HPA_FIELD_MANAGER };
    }
  }
  return undefined;
}

function matchesTarget(entry: Readonly<Record<string, unknown>>, target: IgnoreTarget): boolean {
  const group = typeof entry.group === 'string' ? entry.group : '';
  const kind = text(entry.kind);
  if (kind === undefined || !globMatch(group, target.group) || !globMatch(kind, target.kind)) return false;
  const name = text(entry.name);
  const namespace = text(entry.namespace);
  if (name !== undefined && name !== target.name) return false;
  return namespace === undefined || target.namespace === undefined || namespace === target.namespace;
}

/**
 * Glob with `*`, `?`, `[...]` and `{a,b}`, matched against the whole string (gobwas/glob, no separators).
 * The pattern comes from Git: it runs on RE2 (linear time), since `*a*a*a…b` backtracks polynomially.
 */
export function globMatch(pattern: string, value: string): boolean {
  let compiled = compiledGlobs.get(pattern);
  if (compiled === undefined) {
    compiled = compileGlob(pattern);
    if (compiledGlobs.size >= GLOB_CACHE_LIMIT) compiledGlobs.clear();
    compiledGlobs.set(pattern, compiled);
  }
  return compiled === null ? pattern === value : compiled.test(value);
}

// Sync windows match every app of a fan-out against the same few patterns: compile each once.
const GLOB_CACHE_LIMIT = 1024;
const compiledGlobs = new Map<string, RE2JS | null>();

/** The pattern on RE2, or null where it is matched literally (unclosed braces, what RE2 refuses). */
function compileGlob(pattern: string): RE2JS | null {
  let source = '';
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charAt(i);
    if (c === '*') source += '.*';
    else if (c === '?') source += '.';
    else if (c === '{') {
      braces++;
      source += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      source += ')';
    } else if (c === ',' && braces > 0) source += '|';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end === -1) source += '\\[';
      else {
        const body = pattern.slice(i + 1, end).replace(/\\/g, '\\\\');
        source += body.startsWith('!') ? `[^${body.slice(1)}]` : `[${body}]`;
        i = end;
      }
    } else source += c.replace(/[.+^$()|\\\]]/g, '\\$&');
  }
  if (braces > 0) return null;
  try {
    return RE2JS.compile(`^${source}$`);
  } catch {
    return null;
  }
}
