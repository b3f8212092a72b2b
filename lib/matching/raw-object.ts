/**
 * Reading Kubernetes objects as they come off a cluster (`unknown` JSON). Parsers never throw: a malformed
 * object becomes `{ ok: false, reason }` so fan-out can record it and carry on with the rest.
 */
export type Parsed<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reason: string };

export type RawRecord = Readonly<Record<string, unknown>>;

/** Control flow inside `parseObject` only; it never escapes a parser. */
class MalformedObjectError extends Error {}

export function fail(reason: string): never {
  throw new MalformedObjectError(reason);
}

/** Runs a parser written with the helpers below and turns its first complaint into a reason. */
export function parseObject<T>(parse: () => T): Parsed<T> {
  try {
    return { ok: true, value: parse() };
  } catch (error) {
    if (error instanceof MalformedObjectError) return { ok: false, reason: error.message };
    return { ok: false, reason: 'unreadable object' };
  }
}

export function isRecord(value: unknown): value is RawRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function record(value: unknown, where: string): RawRecord {
  if (!isRecord(value)) fail(`${where} is not an object`);
  return value;
}

export function optionalRecord(value: unknown, where: string): RawRecord | undefined {
  return value === undefined || value === null ? undefined : record(value, where);
}

export function optionalList(value: unknown, where: string): readonly unknown[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) fail(`${where} is not a list`);
  return value;
}

export function optionalString(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') fail(`${where} is not a string`);
  return value;
}

export function requiredString(value: unknown, where: string): string {
  const text = optionalString(value, where);
  if (text === undefined || text === '') fail(`${where} is missing`);
  return text;
}

export interface ObjectMeta {
  readonly namespace: string;
  readonly name: string;
  readonly annotations: RawRecord;
}

export function readMeta(raw: unknown): ObjectMeta {
  const metadata = record(record(raw, 'object').metadata, 'metadata');
  return {
    namespace: requiredString(metadata.namespace, 'metadata.namespace'),
    name: requiredString(metadata.name, 'metadata.name'),
    annotations: optionalRecord(metadata.annotations, 'metadata.annotations') ?? {},
  };
}

/** The name and namespace of an object that failed to parse, when it has them, for the record. */
export function identify(raw: unknown): { namespace?: string; name?: string } {
  const metadata = isRecord(raw) && isRecord(raw.metadata) ? raw.metadata : {};
  return {
    ...(typeof metadata.namespace === 'string' ? { namespace: metadata.namespace } : {}),
    ...(typeof metadata.name === 'string' ? { name: metadata.name } : {}),
  };
}
