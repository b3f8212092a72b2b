import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repo = resolve('.');
let child: ChildProcess | undefined;
let cwd: string | undefined;

afterAll(async () => {
  if (child?.exitCode === null) child.kill('SIGKILL');
  if (cwd !== undefined) await rm(cwd, { recursive: true, force: true });
});

/**
 * Runs `npm start`'s script in a scratch directory until it has printed its banner. Node loads tsx as a
 * loader in the one process (not through tsx's CLI, whose parent relays SIGTERM and kills the child with
 * SIGKILL, exit 143, when the child does not acknowledge the signal within 30 ms: a loaded CI machine).
 */
async function startScript(dir: string): Promise<{ output: string; exited: Promise<number | null> }> {
  const proc = spawn(
    process.execPath,
    [
      '--import',
      pathToFileURL(join(repo, 'node_modules/tsx/dist/loader.mjs')).href,
      join(repo, 'infra/local/start.ts'),
    ],
    {
      cwd: dir,
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'SILENT', RECONCILE_INTERVAL_SECONDS: '3600' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child = proc;
  const exited = new Promise<number | null>((done) => proc.once('exit', (code) => done(code)));
  let output = '';
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no banner: ${output}`)), 90_000);
    proc.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('Try it: npm run demo')) {
        clearTimeout(timer);
        done();
      }
    });
    proc.once('exit', () => fail(new Error(`exited early: ${output}`)));
  });
  return { output, exited };
}

describe('npm start', () => {
  it('prints each simulated cluster with its token and writes its kubeconfig under .local/<port>/', async () => {
    cwd = await mkdtemp(join(tmpdir(), 'start-script-'));
    const { output, exited } = await startScript(cwd);
    const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
    expect(port).toBeDefined();
    for (const name of ['hub', 'spoke-a', 'spoke-b', 'spoke-c']) {
      expect(output).toMatch(
        new RegExp(`^ {2}${name} +http://127\\.0\\.0\\.1:\\d+ +sim-${name}-[0-9a-f]{24}$`, 'm'),
      );
    }
    const dir = join(cwd, '.local', String(port));
    const kubeconfig = join(dir, 'kubeconfig');
    expect(output).toContain(`kubeconfig: ${kubeconfig}`);
    const hubToken = /^ {2}hub +\S+ +(\S+)$/m.exec(output)?.[1] ?? '';
    expect(readFileSync(kubeconfig, 'utf8')).toContain(hubToken);
    expect(JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'))).toMatchObject({
      url: `http://127.0.0.1:${port}`,
      kubeconfig,
      fleetFile: join(dir, 'fleet.yaml'),
    });
    child?.kill('SIGTERM');
    expect(await exited).toBe(0);
    // The tokens die with the stack, and so do the files that carry them.
    expect(existsSync(dir)).toBe(false);
  }, 120_000);
});
