import { type Document, isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { FleetConfigError } from '../errors.js';

/** A YAML document read field by field; every problem names `file:line: path`. */
export class YamlReader {
  private constructor(
    readonly source: string,
    private readonly document: Document.Parsed,
    private readonly lines: LineCounter,
  ) {}

  static parse(text: string, source: string): { reader: YamlReader; root: Node | null } {
    const lines = new LineCounter();
    const document = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
    const [error] = document.errors;
    if (error !== undefined) {
      const line = error.linePos?.[0].line ?? lines.linePos(error.pos[0]).line;
      throw new FleetConfigError(`${source}:${line}: ${error.message.split('\n')[0]}`);
    }
    const reader = new YamlReader(source, document, lines);
    return { reader, root: reader.resolve(document.contents) };
  }

  fail(node: Node | null | undefined, path: string, problem: string): never {
    const offset = node?.range?.[0];
    const line = offset === undefined ? 1 : this.lines.linePos(offset).line;
    throw new FleetConfigError(`${this.source}:${line}: ${path === '' ? '' : `${path}: `}${problem}`);
  }

  resolve(node: unknown): Node | null {
    if (isAlias(node)) return (node.resolve(this.document) as Node | undefined) ?? null;
    return (node as Node | null | undefined) ?? null;
  }

  /** A mapping whose keys must all be in `allowed` (typos are errors, never silently ignored). */
  fields(node: Node | null, path: string, allowed: readonly string[]): Fields {
    if (!isMap(node)) this.fail(node, path, 'must be a mapping');
    const entries = new Map<string, Node | null>();
    for (const pair of node.items) {
      const key = this.resolve(pair.key);
      const name = isScalar(key) ? String(key.value) : undefined;
      const keyPath = join(path, name ?? '?');
      if (name === undefined) this.fail(key, path, 'keys must be plain strings');
      if (!allowed.includes(name)) {
        const hint = closest(name, allowed);
        this.fail(key, keyPath, `unknown field${hint === undefined ? '' : ` (did you mean "${hint}"?)`}`);
      }
      entries.set(name, this.resolve(pair.value));
    }
    return new Fields(this, node, path, entries);
  }

  sequence(node: Node | null, path: string): (Node | null)[] {
    if (!isSeq(node)) this.fail(node, path, 'must be a list');
    return node.items.map((item) => this.resolve(item));
  }
}

export class Fields {
  constructor(
    readonly reader: YamlReader,
    readonly self: Node,
    readonly path: string,
    private readonly entries: Map<string, Node | null>,
  ) {}

  has(key: string): boolean {
    return this.entries.has(key) && !isNull(this.entries.get(key));
  }

  node(key: string): Node | null {
    return this.entries.get(key) ?? null;
  }

  pathOf(key: string): string {
    return join(this.path, key);
  }

  fail(key: string | undefined, problem: string): never {
    const node = key === undefined ? this.self : (this.entries.get(key) ?? this.self);
    return this.reader.fail(node, key === undefined ? this.path : this.pathOf(key), problem);
  }

  /** A non-empty string, checked against `check` (which returns a problem or undefined). */
  string(key: string, check?: (value: string) => string | undefined): string | undefined {
    if (!this.has(key)) return undefined;
    const node = this.node(key);
    if (!isScalar(node) || typeof node.value !== 'string') this.fail(key, 'must be a string (quote it)');
    const value = node.value.trim();
    if (value === '') this.fail(key, 'must not be empty');
    const problem = check?.(value);
    if (problem !== undefined) this.fail(key, problem);
    return value;
  }

  requiredString(key: string, check?: (value: string) => string | undefined): string {
    const value = this.string(key, check);
    if (value === undefined) this.reader.fail(this.self, this.pathOf(key), 'is required');
    return value;
  }

  integer(key: string, min: number, max: number): number | undefined {
    if (!this.has(key)) return undefined;
    const node = this.node(key);
    const value = isScalar(node) ? node.value : undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.fail(key, `must be a whole number from ${min} to ${max}`);
    }
    return value;
  }

  oneOf<T extends string>(key: string, values: readonly T[]): T | undefined {
    return this.string(key, (value) =>
      values.includes(value as T) ? undefined : `must be one of ${values.join(', ')}`,
    ) as T | undefined;
  }
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function isNull(node: Node | null | undefined): boolean {
  return node === null || node === undefined || (isScalar(node) && node.value === null);
}

/** A near-miss of a known key (edit distance ≤ 2, or a shortened form), to say what was probably meant. */
function closest(name: string, allowed: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const extended = allowed.find((key) => lower.length >= 3 && key.toLowerCase().startsWith(lower));
  if (extended !== undefined) return extended;
  let best: { key: string; distance: number } | undefined;
  for (const key of allowed) {
    const distance = editDistance(name.toLowerCase(), key.toLowerCase());
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { key, distance };
  }
  return best?.key;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
