import { readFile } from 'node:fs/promises';
import { checkFleetFile } from '../fleet/fleet-file.js';
import type { FleetMode } from '../fleet/yaml-reader.js';

export interface ValidateResult {
  readonly ok: boolean;
  /** What to print: every problem (`file:line: field.path: problem`, in line order), or a summary. */
  readonly lines: readonly string[];
}

/** `gitops-sync validate [file] [--local]`; also what `npm run package` runs before packaging. */
export async function validateFleetPath(path: string, mode: FleetMode): Promise<ValidateResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return {
      ok: false,
      lines: [`${path}: cannot be read (${(error as { code?: string }).code ?? 'error'})`],
    };
  }
  const result = checkFleetFile(text, path, { mode });
  if (!result.ok) return { ok: false, lines: result.problems };
  const { clusters, repositories } = result.fleet;
  return {
    ok: true,
    lines: [
      `${path}: valid (${clusters.length} cluster${clusters.length === 1 ? '' : 's'}, ${repositories.length} repositor${repositories.length === 1 ? 'y' : 'ies'}${mode === 'local' ? ', local stack rules' : ''})`,
    ],
  };
}
