import { type Document, isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { closest } from './near-miss.js';

/** `local` (the local stack, tests) allows literal tokens and plain http; `deployed` refuses them. */
export const FLEET_MODES = ['local', 'deployed'] as const;
export type FleetMode = (typeof FLEET_MODES)[number];

/** One problem of a fleet file: `file:line: field.path: problem`. */
export interface FleetProblem {
  readonly line: number;
  readonly path: string;
  readonly problem: string;
}

/**
 * A YAML document read field by field. Every problem is recorded with its line and reading goes on, so
 * one pass reports them all; a value with a problem reads as absent (or a placeholder for required ones)
 * and the result is only used when no problem was recorded.
 */
export class YamlReader {
  readonly problems: FleetProblem[] = [];

  private constructor(
    readonly source: string,
    readonly mode: FleetMode,
    private readonly document: Document.Parsed | undefined,
    private readonly lines: LineCounter,
  ) {}

  /** `root` is undefined when the YAML itself does not parse (its errors are already recorded). */
  static parse(text: string, source: string, mode: FleetMode): { reader: YamlReader; root?: Node | null } {
    const lines = new LineCounter();
    const document = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
    if (document.errors.length > 0) {
      const reader = new YamlReader(source, mode, undefined, lines);
      for (const error of document.errors) {
        const line = error.linePos?.[0].line ?? lines.linePos(error.pos[0]).line;
        reader.problems.push({ line, path: '', problem: error.message.split('\n')[0] ?? 'invalid YAML' });
      }
      return { reader };
    }
    const reader = new YamlReader(source, mode, document, lines);
    return { reader, root: reader.resolve(document.contents) };
  }

  fail(node: Node | null | undefined, path: string, problem: string): void {
    const offset = node?.range?.[0];
    const line = offset === undefined ? 1 : this.lines.linePos(offset).line;
    this.problems.push({ line, path, problem });
  }

  /** The problems in line order (stable within a line), each as `file:line: path: problem`. */
  messages(): string[] {
    return [...this.problems]
      .map((p, i) => ({ ...p, i }))
      .sort((a, b) => a.line - b.line || a.i - b.i)
      .map((p) => `${this.source}:${p.line}: ${p.path === '' ? '' : `${p.path}: `}${p.problem}`);
  }

  resolve(node: unknown): Node | null {
    if (isAlias(node)) return (node.resolve(this.document as Document.Parsed) as Node | undefined) ?? null;
    return (node as Node | null | undefined) ?? null;
  }

  /** A mapping whose keys must all be in `allowed` (typos are errors, never silently ignored). */
  fields(node: Node | null, path: string, allowed: readonly string[]): Fields {
    const entries = new Map<string, Node | null>();
    if (!isMap(node)) {
      this.fail(node, path, 'must be a mapping');
      // A broken block reports nothing more: "is required" under it would only repeat this problem.
      return new Fields(this, node, path, entries, true);
    }
    for (const pair of node.items) {
      const key = this.resolve(pair.key);
      const name = isScalar(key) ? String(key.value) : undefined;
      if (name === undefined) {
        this.fail(key, path, 'keys must be plain strings');
        continue;
      }
      if (!allowed.includes(name)) {
        const hint = closest(name, allowed);
        this.fail(
          key,
          join(path, name),
          `unknown field${hint === undefined ? '' : ` (did you mean "${hint}"?)`}`,
        );
        continue;
      }
      entries.set(name, this.resolve(pair.value));
    }
    return new Fields(this, node, path, entries, false);
  }

  sequence(node: Node | null, path: string): (Node | null)[] {
    if (!isSeq(node)) {
      this.fail(node, path, 'must be a list');
      return [];
    }
    return node.items.map((item) => this.resolve(item));
  }
}

export class Fields {
  constructor(
    readonly reader: YamlReader,
    readonly self: Node | null,
    readonly path: string,
    private readonly entries: Map<string, Node | null>,
    /** The block was not a mapping (already reported). */
    readonly broken: boolean,
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

  fail(key: string | undefined, problem: string): void {
    const node = key === undefined ? this.self : (this.entries.get(key) ?? this.self);
    this.reader.fail(node, key === undefined ? this.path : this.pathOf(key), problem);
  }

  /** Reports `key` as missing (at the block's first line), unless the block itself is broken. */
  missing(key: string): void {
    if (!this.broken) this.reader.fail(this.self, this.pathOf(key), 'is required');
  }

  /** A value only the local stack may use (a literal token, a plain-http URL): refused when deployed. */
  localOnly(key: string, problem: string | undefined): void {
    if (problem !== undefined && this.reader.mode === 'deployed' && this.has(key)) this.fail(key, problem);
  }

  /** A non-empty string, checked against `check` (which returns a problem or undefined). */
  string(key: string, check?: (value: string) => string | undefined): string | undefined {
    if (!this.has(key)) return undefined;
    const node = this.node(key);
    if (!isScalar(node) || typeof node.value !== 'string') {
      this.fail(key, 'must be a string (quote it)');
      return undefined;
    }
    const value = node.value.trim();
    const problem = value === '' ? 'must not be empty' : check?.(value);
    if (problem === undefined) return value;
    this.fail(key, problem);
    return undefined;
  }

  /** Like `string`, and reported when absent; '' stands in for a value with a problem. */
  requiredString(key: string, check?: (value: string) => string | undefined): string {
    if (!this.has(key)) {
      this.missing(key);
      return '';
    }
    return this.string(key, check) ?? '';
  }

  integer(key: string, min: number, max: number): number | undefined {
    if (!this.has(key)) return undefined;
    const node = this.node(key);
    const value = isScalar(node) ? node.value : undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.fail(key, `must be a whole number from ${min} to ${max}`);
      return undefined;
    }
    return value;
  }

  boolean(key: string): boolean | undefined {
    if (!this.has(key)) return undefined;
    const node = this.node(key);
    if (isScalar(node) && typeof node.value === 'boolean') return node.value;
    this.fail(key, 'must be true or false');
    return undefined;
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
