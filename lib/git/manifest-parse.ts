import { parseAllDocuments } from 'yaml';

export interface ParsedFile {
  /** Each Kubernetes object, in file order; `List` kinds and JSON arrays are unpacked. */
  readonly objects: readonly Record<string, unknown>[];
  /** Problems in the file; messages give a position, never the file's content. */
  readonly errors: readonly string[];
}

const MAX_ALIASES = 100;

/** Parses every YAML (or JSON) document of one file; a broken document is reported, not thrown. */
export function parseManifestFile(text: string): ParsedFile {
  const objects: Record<string, unknown>[] = [];
  const errors: string[] = [];
  let documents: ReturnType<typeof parseAllDocuments>;
  try {
    documents = parseAllDocuments(text, { prettyErrors: true, uniqueKeys: false, merge: true });
  } catch (error) {
    return { objects, errors: [`not parsable: ${(error as { code?: string }).code ?? 'YAML error'}`] };
  }
  if (!Array.isArray(documents)) return { objects, errors };
  documents.forEach((document, index) => {
    const label = `document ${index + 1}`;
    // Code and position only: yaml's messages quote the source, which may hold a secret value.
    const [problem] = document.errors;
    if (problem !== undefined) {
      const at = problem.linePos?.[0];
      errors.push(
        `${label}: ${problem.code}${at === undefined ? '' : ` at line ${at.line}, column ${at.col}`}`,
      );
      return;
    }
    let value: unknown;
    try {
      value = document.toJS({ maxAliasCount: MAX_ALIASES });
    } catch {
      errors.push(`${label}: too many aliases or an unresolvable alias`);
      return;
    }
    collectObjects(value, label, objects, errors);
  });
  return { objects, errors };
}

function collectObjects(
  value: unknown,
  label: string,
  objects: Record<string, unknown>[],
  errors: string[],
): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    for (const item of value) collectObjects(item, label, objects, errors);
    return;
  }
  if (typeof value !== 'object') {
    errors.push(`${label}: not a Kubernetes object (a ${typeof value})`);
    return;
  }
  const record = value as Record<string, unknown>;
  if (record.kind === 'List' && Array.isArray(record.items)) {
    for (const item of record.items) collectObjects(item, label, objects, errors);
    return;
  }
  objects.push(record);
}
