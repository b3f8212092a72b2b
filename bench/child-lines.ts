import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** A child's `--name value` arguments (its parseArgs options), in the order given. */
export function childFlags(flags: Readonly<Record<string, string | number>>): string[] {
  return Object.entries(flags).flatMap(([name, value]) => [`--${name}`, String(value)]);
}

/**
 * Runs `node <args>` without the benchmark's NODE_OPTIONS, its stderr passed through, and gives the lines it
 * printed on stdout and its exit code once it has exited.
 */
export async function runChildLines(
  args: readonly string[],
): Promise<{ lines: string[]; code: number | null }> {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const lines: string[] = [];
  for await (const line of createInterface({ input: child.stdout })) lines.push(line);
  return { lines, code: await exited };
}
