/** Defensive readers for objects that came from a cluster or from Git: any field may be absent or odd. */

export type UnknownRecord = Readonly<Record<string, unknown>>;

export function isRecord(value: unknown): value is UnknownRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at a path of keys, or undefined as soon as a step is not an object. */
export function at(value: unknown, ...path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isRecord(current)) return undefined;
    current = current[key];
  }
  return current;
}

export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

export function record(value: unknown): UnknownRecord | undefined {
  return isRecord(value) ? value : undefined;
}

export function stringList(value: unknown): readonly string[] {
  return list(value).filter((item): item is string => typeof item === 'string');
}

/** A Kubernetes object reduced to what the rules match on; `raw` keeps the rest. */
export interface K8sObject {
  readonly apiVersion: string;
  /** API group: `''` for the core group. */
  readonly group: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly annotations: Readonly<Record<string, string>>;
  readonly raw: UnknownRecord;
}

export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

/** Reads an object; undefined when it lacks apiVersion, kind or name. */
export function readObject(value: unknown, defaultNamespace?: string): K8sObject | undefined {
  if (!isRecord(value)) return undefined;
  const apiVersion = text(value.apiVersion);
  const kind = text(value.kind);
  const name = text(at(value, 'metadata', 'name'));
  if (apiVersion === undefined || kind === undefined || name === undefined) return undefined;
  const namespace = text(at(value, 'metadata', 'namespace')) ?? defaultNamespace;
  const annotations: Record<string, string> = {};
  for (const [key, v] of Object.entries(record(at(value, 'metadata', 'annotations')) ?? {})) {
    if (typeof v === 'string') annotations[key] = v;
  }
  return {
    apiVersion,
    group: groupOf(apiVersion),
    kind,
    name,
    ...(namespace === undefined ? {} : { namespace }),
    annotations,
    raw: value,
  };
}

/** `Kind/namespace/name`, or `Kind/name` for an object without a namespace. */
export function subjectOf(object: Pick<K8sObject, 'kind' | 'name' | 'namespace'>): string {
  return object.namespace === undefined
    ? `${object.kind}/${object.name}`
    : `${object.kind}/${object.namespace}/${object.name}`;
}

export function parseTime(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
