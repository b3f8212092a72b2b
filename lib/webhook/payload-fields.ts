import { BadRequestError } from '../errors.js';

export type JsonRecord = Readonly<Record<string, unknown>>;

const COMMIT_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `path` is the field's dotted path in the payload, named in the 400 answer. */
export function requireRecord(parent: JsonRecord, key: string, path: string = key): JsonRecord {
  const value = parent[key];
  if (value === undefined || value === null) throw missingField(path);
  if (!isRecord(value)) throw wrongType(path, 'an object');
  return value;
}

export function requireString(parent: JsonRecord, key: string, path: string = key): string {
  const value = parent[key];
  if (value === undefined || value === null || value === '') throw missingField(path);
  if (typeof value !== 'string') throw wrongType(path, 'a string');
  return value;
}

export function requireCommitSha(parent: JsonRecord, key: string, path: string = key): string {
  const value = requireString(parent, key, path);
  if (!COMMIT_SHA.test(value)) throw wrongType(path, 'a commit SHA');
  return value.toLowerCase();
}

export function optionalRecord(parent: JsonRecord | undefined, key: string): JsonRecord | undefined {
  const value = parent?.[key];
  return isRecord(value) ? value : undefined;
}

/** A non-empty string, or undefined for anything else (these fields are informative only). */
export function optionalString(parent: JsonRecord | undefined, key: string): string | undefined {
  const value = parent?.[key];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

export function optionalBoolean(parent: JsonRecord, key: string): boolean {
  return parent[key] === true;
}

/** A positive safe integer, given as a number or a numeric string. */
export function optionalId(parent: JsonRecord | undefined, key: string): number | undefined {
  const value = parent?.[key];
  const id = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

export function isCommitSha(value: string | undefined): value is string {
  return value !== undefined && COMMIT_SHA.test(value);
}

export function isZeroSha(sha: string): boolean {
  return /^0+$/.test(sha);
}

/** An absolute http(s) URL as given, or undefined. */
export function httpUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? value : undefined;
  } catch {
    return undefined;
  }
}

export function firstLine(text: string | undefined): string {
  return text?.split(/\r?\n/, 1)[0]?.trim() ?? '';
}

export function uniqueStrings(values: readonly (string | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => v !== undefined && v.trim() !== ''))];
}

export function missingField(path: string): BadRequestError {
  return new BadRequestError(`push payload is missing "${path}"`, { code: 'invalid-payload' });
}

export function wrongType(path: string, expected: string): BadRequestError {
  return new BadRequestError(`push payload field "${path}" must be ${expected}`, { code: 'invalid-payload' });
}

/** A push payload as an object, or the 400 saying it is not one. */
export function payloadObject(payload: unknown): JsonRecord {
  if (!isRecord(payload)) throw notAnObject();
  return payload;
}

export function notAnObject(): BadRequestError {
  return new BadRequestError('push payload must be a JSON object', { code: 'invalid-payload' });
}

/** Caller-supplied text echoed in an answer or a log line: bounded and free of control characters. */
export function quoted(text: string, max = 100): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, '?');
  return JSON.stringify(clean.length > max ? `${clean.slice(0, max)}…` : clean);
}
