import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What a running `npm start` tells `npm run demo` (written to the working directory, git-ignored). */
export interface LocalStackState {
  readonly url: string;
  readonly reposRoot?: string;
  readonly platformUrl?: string;
  readonly githubSecret?: string;
  readonly pid: number;
}

export const STATE_FILE = join(process.cwd(), '.local-stack.json');

export function writeStackState(state: LocalStackState): void {
  writeFileSync(STATE_FILE, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

export function readStackState(): LocalStackState | undefined {
  try {
    return JSON.parse(readFileSync(STATE_FILE, 'utf8')) as LocalStackState;
  } catch {
    return undefined;
  }
}

export function removeStackState(): void {
  rmSync(STATE_FILE, { force: true });
}
