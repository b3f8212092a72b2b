#!/usr/bin/env node
// The package's `gitops-sync` command: runs the TypeScript CLI through tsx (installed by `npm ci`).
import { register } from 'tsx/esm/api';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
const { runCli } = await import('../lib/cli/main.ts');
process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});
