import { parseAllDocuments } from 'yaml';

/** A file (or one of its documents) that does not parse into Kubernetes objects, and where. */
export interface ParseFailure {
  /** Code and position only, never the file's content. */
  readonly message: string;
  /** 1-based, when the YAML library gives a position. */
  readonly line?: number;
  readonly column?: number;
}

export interface ParsedFile {
  /** Each Kubernetes object, in file order; `List` kinds and JSON arrays are unpacked. */
  readonly objects: readonly Record<string, unknown>[];
  /** Problems in the file; messages give a position, never the file's content. */
  readonly errors: readonly string[];
  /** The same problems with their position: each is a document Argo CD could not unmarshal either. */
  readonly failures: readonly ParseFailure[];
}

const MAX_ALIASES = 100;

/** Parses every YAML (or JSON) document of one file; a broken document is reported, not thrown. */
export function parseManifestFile(text: string): ParsedFile {
  const objects: Record<string, unknown>[] = [];
  const failures: ParseFailure[] = [];
  const done = () => ({ objects, errors: failures.map((f) => f.message), failures });
  let documents: ReturnType<typeof parseAllDocuments>;
  try {
    documents = parseAllDocuments(text, { prettyErrors: true, uniqueKeys: false, merge: true });
  } catch (error) {
    failures.push({ message: `not parsable: ${(error as { code?: string }).code ?? 'YAML error'}` });
    return done();
  }
  if (!Array.isArray(documents)) return done();
  documents.forEach((document, index) => {
    const label = `document ${index + 1}`;
    // Code and position only: yaml's messages quote the source, which may hold a secret value.
    const [problem] = document.errors;
    if (problem !== undefined) {
      const at = problem.linePos?.[0];
      failures.push({
        message: `${label}: ${problem.code}${at === undefined ? '' : ` at line ${at.line}, column ${at.col}`}`,
        ...(at === undefined ? {} : { line: at.line, column: at.col }),
      });
      return;
    }
    const line = lineAt(text, document.contents?.range?.[0] ?? document.range?.[0] ?? 0);
    let value: unknown;
    try {
      value = document.toJS({ maxAliasCount: MAX_ALIASES });
    } catch {
      failures.push({ message: `${label}: too many aliases or an unresolvable alias`, line });
      return;
    }
    collectObjects(value, label, objects, (message) => failures.push({ message, line }));
  });
  return done();
}

/** The 1-based line of a character offset. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function collectObjects(
  value: unknown,
  label: string,
  objects: Record<string, unknown>[],
  fail: (message: string) => void,
): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    for (const item of value) collectObjects(item, label, objects, fail);
    return;
  }
  if (typeof value !== 'object') {
    fail(`${label}: not a Kubernetes object (a ${typeof value})`);
    return;
  }
  const record = value as Record<string, unknown>;
  if (record.kind === 'List' && Array.isArray(record.items)) {
    for (const item of record.items) collectObjects(item, label, objects, fail);
    return;
  }
  objects.push(record);
}
