import { readFile } from 'node:fs/promises';
import { createFleetTextReader } from '../aws/fleet-text.js';
import { type Env, loadConfig } from '../config.js';
import { ConfigError } from '../errors.js';
import type { AwsScopes } from '../fleet/aws-scopes.js';
import { checkFleetFile } from '../fleet/fleet-file.js';
import type { FleetMode } from '../fleet/yaml-reader.js';

export interface ValidateResult {
  readonly ok: boolean;
  /** What to print: every problem (`file:line: field.path: problem`, in line order), or a summary. */
  readonly lines: readonly string[];
}

/**
 * `gitops-sync validate [file | ssm:/name | s3://bucket/key] [--local]`; also what `npm run package` runs
 * before packaging. A `FLEET_SOURCE`-style argument is read as the functions read it (your credentials;
 * AWS_REGION, SSM_ENDPOINT and S3_ENDPOINT from `env`). With `scopes` (`--stage`), every secret and role
 * the fleet names must be one the stage's policies let the functions read or assume.
 */
export async function validateFleetPath(
  path: string,
  mode: FleetMode,
  env: Env = {},
  scopes?: AwsScopes,
): Promise<ValidateResult> {
  let text: string;
  try {
    text = /^(ssm:|s3:\/\/)/.test(path) ? await readRemote(path, env) : await readFile(path, 'utf8');
  } catch (error) {
    const e = error as { code?: unknown; name?: unknown };
    const code = typeof e.code === 'string' ? e.code : typeof e.name === 'string' ? e.name : 'error';
    const reason = error instanceof ConfigError ? error.message : code;
    return { ok: false, lines: [`${path}: cannot be read (${reason})`] };
  }
  const result = checkFleetFile(text, path, { mode, ...(scopes === undefined ? {} : { scopes }) });
  if (!result.ok) return { ok: false, lines: result.problems };
  const { clusters, repositories } = result.fleet;
  return {
    ok: true,
    lines: [
      `${path}: valid (${clusters.length} cluster${clusters.length === 1 ? '' : 's'}, ${repositories.length} repositor${repositories.length === 1 ? 'y' : 'ies'}${mode === 'local' ? ', local stack rules' : ''}${scopes === undefined ? '' : `, inside stage ${scopes.stage}'s policies in ${scopes.region ?? 'any region'}`})`,
    ],
  };
}

async function readRemote(source: string, env: Env): Promise<string> {
  const config = loadConfig({
    TABLE_NAME: 'gitops-sync-cli',
    FLEET_SOURCE: source,
    ...Object.fromEntries(
      ['AWS_REGION', 'AWS_DEFAULT_REGION', 'SSM_ENDPOINT', 'S3_ENDPOINT'].map((k) => [k, env[k]]),
    ),
  });
  if (config.fleetSource === undefined) throw new Error('not a fleet source');
  return createFleetTextReader({
    region: config.region,
    ...(config.ssmEndpoint === undefined ? {} : { ssmEndpoint: config.ssmEndpoint }),
    ...(config.s3Endpoint === undefined ? {} : { s3Endpoint: config.s3Endpoint }),
  })(config.fleetSource);
}
