/** Small readers for objects of unknown shape (YAML documents, live cluster objects). */

export type Rec = Readonly<Record<string, unknown>>;

export function isRecord(value: unknown): value is Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string field; `undefined` when absent, `null` when present with another type. */
export function stringField(object: Rec, field: string): string | undefined | null {
  const value = object[field];
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : null;
}

export function recordField(object: Rec, field: string): Rec | undefined | null {
  const value = object[field];
  if (value === undefined || value === null) return undefined;
  return isRecord(value) ? value : null;
}

export function arrayField(object: Rec, field: string): readonly unknown[] | undefined | null {
  const value = object[field];
  if (value === undefined || value === null) return undefined;
  return Array.isArray(value) ? value : null;
}

export function metadataOf(object: Rec): { name?: string; namespace?: string; generation?: number } {
  const metadata = recordField(object, 'metadata') ?? {};
  const name = stringField(metadata, 'name');
  const namespace = stringField(metadata, 'namespace');
  const generation = metadata.generation;
  return {
    ...(typeof name === 'string' && name !== '' ? { name } : {}),
    ...(typeof namespace === 'string' && namespace !== '' ? { namespace } : {}),
    ...(typeof generation === 'number' ? { generation } : {}),
  };
}

/** A map of string to string (tags, labels); `null` when any value is not a string. */
export function stringMap(value: unknown): Readonly<Record<string, string>> | undefined | null {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) return null;
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') return null;
    out[key] = item;
  }
  return out;
}
