import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const repo = resolve('.');

describe('npm run demo -- failed-sync', () => {
  it('shows a sync Argo CD failed with its per-resource reason, the Slack reply and the retry command', async () => {
    const { stdout } = await exec(
      process.execPath,
      [resolve(repo, 'node_modules/tsx/dist/cli.mjs'), resolve(repo, 'infra/local/demo.ts'), 'failed-sync'],
      { env: { ...process.env, PORT: '0', LOG_LEVEL: 'SILENT' }, timeout: 150_000 },
    );
    const sha = /^rollout ([0-9a-f]{7}) ended partial/m.exec(stdout)?.[1];
    expect(sha).toBeDefined();
    expect(stdout).toContain(`rollout ${sha} ended partial: 1 sync(s) failed in Argo CD`);
    expect(stdout).toMatch(
      /^ {2}spoke-c argocd\/web-e2e: failed \(OutOfSync\/Healthy\) — one or more synchronization tasks completed unsuccessfully$/m,
    );
    // Argo CD's reason for the one resource, as its syncResult says it.
    expect(stdout).toMatch(
      /^ {4}Deployment web-e2e\/web-e2e SyncFailed: simulated: admission webhook denied the request for deployment "web-e2e"$/m,
    );
    // The Slack thread reply the team reads carries the same reason.
    expect(stdout).toMatch(/^ {2}\| • Deployment web-e2e\/web-e2e: simulated: admission webhook denied/m);
    expect(stdout).toMatch(/^ {2}\| :point_right: What to do: fix what Argo CD refused/m);
    // The Slack message links the rollout's page on the stack's own URL.
    expect(stdout).toMatch(
      new RegExp(
        `^Slack message: .* \\(links http://127\\.0\\.0\\.1:\\d+/ui/rollouts/${sha}[0-9a-f]{33}\\)$`,
        'm',
      ),
    );
    expect(stdout).toMatch(
      new RegExp(`npx gitops-sync retry ${sha}[0-9a-f]{5} --cluster spoke-c --app web-e2e`),
    );
  }, 180_000);
});
