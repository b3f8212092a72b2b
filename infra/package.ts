import { spawnSync } from 'node:child_process';
import { validateFleetPath } from '../lib/cli/validate.js';
import { errorMessage } from '../lib/errors.js';
import {
  DEFAULT_DEPLOY_REGION,
  DEFAULT_STAGE,
  deployScopes,
  STAGE_NAME,
  secretSettingProblems,
} from '../lib/fleet/aws-scopes.js';
import { packagedFleetPath } from './packaged-fleet.js';

// `npm run package` / `npm run deploy` [-- --stage S --region R]: validate the fleet file that will be
// packaged (deployed rules, and every secret and role inside what stage S's policies allow), then run
// `serverless <command>` with FLEET_CONFIG naming that file. An invalid fleet never gets packaged. The stage
// defaults to dev for both commands, as serverless.yml's does; the region to serverless.yml's.
const [command = 'package', ...args] = process.argv.slice(2);
const root = process.cwd();
const option = (long: string, short: string): string | undefined => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === long || arg === short) return args[i + 1];
    if (arg.startsWith(`${long}=`)) return arg.slice(long.length + 1);
  }
  return undefined;
};
const stage = option('--stage', '-s');
const region = option('--region', '-r');
let fleet: string;
try {
  if (stage !== undefined && !STAGE_NAME.test(stage))
    throw new Error(`--stage ${stage}: must be letters, digits and "-"`);
  fleet = packagedFleetPath(process.env, root);
} catch (error) {
  process.stderr.write(`${errorMessage(error)}\n`);
  process.exit(1);
}
const scopes = deployScopes(stage ?? DEFAULT_STAGE, region ?? DEFAULT_DEPLOY_REGION, process.env);
const result = await validateFleetPath(fleet, 'deployed', process.env, scopes);
for (const line of result.lines) (result.ok ? process.stdout : process.stderr).write(`${line}\n`);
const settings = secretSettingProblems(process.env, region ?? DEFAULT_DEPLOY_REGION);
for (const line of settings) process.stderr.write(`${line}\n`);
if (!result.ok || settings.length > 0) {
  const what = result.ok
    ? 'a deploy setting names a secret the functions could not read'
    : `${fleet} is invalid for stage ${scopes.stage} (fix it, or set FLEET_CONFIG)`;
  process.stderr.write(`${command} stopped: ${what}\n`);
  process.exit(1);
}
const defaults = [
  ...(stage === undefined ? ['--stage', DEFAULT_STAGE] : []),
  ...(region === undefined ? ['--region', DEFAULT_DEPLOY_REGION] : []),
];
const serverless = spawnSync('npx', ['serverless', command, ...defaults, ...args], {
  stdio: 'inherit',
  env: { ...process.env, FLEET_CONFIG: fleet },
});
process.exit(serverless.status ?? 1);
