import { spawnSync } from 'node:child_process';
import { validateFleetPath } from '../lib/cli/validate.js';
import { errorMessage } from '../lib/errors.js';
import { packagedFleetPath } from './packaged-fleet.js';

// `npm run package` / `npm run deploy`: validate the fleet file that will be packaged (deployed rules),
// then run `serverless <command>` with FLEET_CONFIG naming that file. An invalid fleet never gets packaged.
const [command = 'package', ...args] = process.argv.slice(2);
const root = process.cwd();
let fleet: string;
try {
  fleet = packagedFleetPath(process.env, root);
} catch (error) {
  process.stderr.write(`${errorMessage(error)}\n`);
  process.exit(1);
}
const result = await validateFleetPath(fleet, 'deployed');
for (const line of result.lines) (result.ok ? process.stdout : process.stderr).write(`${line}\n`);
if (!result.ok) {
  process.stderr.write(`${command} stopped: ${fleet} is invalid (fix it, or set FLEET_CONFIG)\n`);
  process.exit(1);
}
const defaults = command === 'package' && args.length === 0 ? ['--stage', 'ci', '--region', 'eu-west-1'] : [];
const serverless = spawnSync('npx', ['serverless', command, ...defaults, ...args], {
  stdio: 'inherit',
  env: { ...process.env, FLEET_CONFIG: fleet },
});
process.exit(serverless.status ?? 1);
