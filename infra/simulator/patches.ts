import { KubeStatusError } from './kube-status.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** RFC 7386 JSON merge patch: objects merge recursively, `null` deletes, anything else replaces. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

interface Operation {
  readonly op: string;
  readonly path: string;
  readonly from?: string;
  readonly value?: unknown;
}

/** RFC 6902 JSON patch, all or nothing: a failed `test` or a bad path is a 422 and changes nothing. */
export function applyJsonPatch(document: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw new KubeStatusError(400, 'a JSON patch must be a list of operations');
  let doc = structuredClone(document) as Json;
  operations.forEach((raw, index) => {
    const operation = raw as Operation;
    if (!isObject(raw) || typeof operation.op !== 'string' || typeof operation.path !== 'string') {
      throw new KubeStatusError(400, `operation ${index}: op and path are required`);
    }
    doc = applyOperation(doc, operation, index);
  });
  return doc;
}

function applyOperation(doc: Json, operation: Operation, index: number): Json {
  const fail = (message: string): never => {
    throw new KubeStatusError(
      422,
      `the server rejected our request due to an error in our request: operation ${index} (${operation.op} ${operation.path}): ${message}`,
    );
  };
  switch (operation.op) {
    case 'test': {
      const actual = read(doc, operation.path);
      if (
        actual === undefined ||
        JSON.stringify(canonical(actual)) !== JSON.stringify(canonical(operation.value))
      ) {
        fail('testing value failed');
      }
      return doc;
    }
    case 'add':
      return write(doc, operation.path, clone(operation.value), 'add', fail);
    case 'replace':
      if (read(doc, operation.path) === undefined) fail('path does not exist');
      return write(doc, operation.path, clone(operation.value), 'replace', fail);
    case 'remove':
      if (read(doc, operation.path) === undefined) fail('path does not exist');
      return write(doc, operation.path, undefined, 'remove', fail);
    case 'move':
    case 'copy': {
      const value = operation.from === undefined ? undefined : read(doc, operation.from);
      if (value === undefined) fail('from path does not exist');
      const moved =
        operation.op === 'move' ? write(doc, operation.from as string, undefined, 'remove', fail) : doc;
      return write(moved, operation.path, clone(value as Json), 'add', fail);
    }
    default:
      return fail(`unknown op "${operation.op}"`);
  }
}

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new KubeStatusError(422, `invalid JSON pointer "${path}"`);
  return path
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function read(doc: Json, path: string): Json | undefined {
  let current: Json | undefined = doc;
  for (const token of pointer(path)) {
    if (Array.isArray(current)) current = /^\d+$/.test(token) ? current[Number(token)] : undefined;
    else if (isObject(current)) current = Object.hasOwn(current, token) ? current[token] : undefined;
    else return undefined;
  }
  return current;
}

function write(
  doc: Json,
  path: string,
  value: Json | undefined,
  mode: 'add' | 'replace' | 'remove',
  fail: (message: string) => never,
): Json {
  const tokens = pointer(path);
  if (tokens.length === 0) return value === undefined ? fail('cannot remove the whole document') : value;
  const last = tokens[tokens.length - 1] as string;
  const parent = read(doc, `/${tokens.slice(0, -1).map(escapeToken).join('/')}`.replace(/^\/$/, ''));
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : /^\d+$/.test(last) ? Number(last) : -1;
    if (index < 0 || index > parent.length || (mode !== 'add' && index >= parent.length))
      fail('index out of range');
    if (mode === 'add') parent.splice(index, 0, value as Json);
    else if (mode === 'replace') parent[index] = value as Json;
    else parent.splice(index, 1);
  } else if (isObject(parent)) {
    if (mode === 'remove') delete parent[last];
    else parent[last] = value as Json;
  } else {
    fail('parent path does not exist');
  }
  return doc;
}

function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function clone(value: unknown): Json {
  return structuredClone(value) as Json;
}

/** Key order must not make two equal objects differ in a `test`. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isObject(value)) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical(value[key])]),
    );
  }
  return value;
}

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
