import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const repo = resolve('.');

describe('npm run demo -- chart', () => {
  it('pushes a chart version to the ECR registry and shows exactly that chart’s apps synced at the new digest', async () => {
    const { stdout } = await exec(
      process.execPath,
      [resolve(repo, 'node_modules/tsx/dist/cli.mjs'), resolve(repo, 'infra/local/demo.ts'), 'chart'],
      { env: { ...process.env, PORT: '0', LOG_LEVEL: 'SILENT' }, timeout: 150_000 },
    );
    const digest = /-> digest sha256:([0-9a-f]{64})$/m.exec(stdout)?.[1];
    expect(digest).toBeDefined();
    const hex = digest as string;
    // The signed ECR event is accepted and keyed by the digest.
    expect(stdout).toMatch(new RegExp(`^-> 202 \\{"delivery":"[^"]+","rollout":"${hex}"\\}$`, 'm'));
    expect(stdout).toMatch(new RegExp(`^rollout ${hex.slice(0, 7)}: succeeded {2}\\{"synced":3\\}$`, 'm'));
    // Argo CD moved the web chart's apps to 1.5.0 and left the api chart's alone.
    const after = stdout.slice(stdout.indexOf('Argo CD after the push'));
    for (const app of ['prod-eu web ', 'prod-eu web-admin', 'prod-us web ']) {
      expect(after).toMatch(
        new RegExp(`^ {2}${app} +chart web +1\\.4\\.0 -> 1\\.5\\.0 +Synced/Healthy {2}refreshed$`, 'm'),
      );
    }
    for (const app of ['prod-eu api ', 'prod-us api ', 'prod-us api-jobs']) {
      expect(after).toMatch(
        new RegExp(`^ {2}${app} +chart api +2\\.3\\.1 +Synced/Healthy {2}untouched$`, 'm'),
      );
    }
    // The rollout holds exactly those three, each synced at the pushed digest.
    const rollout = after.slice(after.indexOf('The rollout of'), after.indexOf('GET '));
    expect(rollout.match(/ synced at sha256:/g)).toHaveLength(3);
    expect(rollout).toMatch(new RegExp(`^ {2}prod-us web +synced at sha256:${hex.slice(0, 12)}$`, 'm'));
    expect(rollout).not.toContain('api');
  }, 180_000);
});
