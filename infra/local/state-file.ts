import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What a running `npm start` tells `npm run demo` (under `.local/<port>/`, git-ignored). */
export interface LocalStackState {
  readonly url: string;
  readonly reposRoot?: string;
  readonly platformUrl?: string;
  readonly githubSecret?: string;
  readonly pid: number;
  /** Written next to the state: a kubeconfig and a fleet file for the simulated clusters. */
  readonly kubeconfig?: string;
  readonly fleetFile?: string;
}

export const DEFAULT_PORT = 3000;

/** One directory per port, so a second stack on another port never clobbers the first one's files. */
export function stackDir(port: number, root = process.cwd()): string {
  return join(root, '.local', String(port));
}

export function writeStackState(port: number, state: LocalStackState, root?: string): string {
  const dir = stackDir(port, root);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, 'state.json');
  writeFileSync(path, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  return path;
}

export function readStackState(port = DEFAULT_PORT, root?: string): LocalStackState | undefined {
  try {
    return JSON.parse(readFileSync(join(stackDir(port, root), 'state.json'), 'utf8')) as LocalStackState;
  } catch {
    return undefined;
  }
}

/** Removes this port's files (state, kubeconfig, fleet file): its clusters' tokens die with the stack. */
export function removeStackState(port: number, root?: string): void {
  rmSync(stackDir(port, root), { recursive: true, force: true });
}
