import { parseArgs } from 'node:util';
import type { Env } from '../config.js';
import { errorMessage } from '../errors.js';
import type { AwsCredentialsProvider } from '../kubernetes/eks-token.js';
import { createReadApi, isLoopback, type ReadApiAuth, ReadApiError } from './read-api.js';
import { type CommandIo, printFindings, printRollout, printRollouts } from './read-commands.js';
import { regionOfApiUrl } from './sigv4.js';
import { validateFleetPath } from './validate.js';

export const DEFAULT_API_URL = 'http://127.0.0.1:3000';

const USAGE = `usage: gitops-sync <command> [options]
  validate [FILE | ssm:/NAME | s3://BUCKET/KEY] [--local]
                                      check a fleet (default: FLEET_CONFIG, else fleet.yaml)
  rollout <sha>                       one rollout (a full or unique short SHA)
  rollouts [--repo R] [--ref REF] [--limit N] [--cursor C]
  findings [--cluster C] [--severity S] [--rule R] [--resolved] [--cursor C]
read options: --url URL (default ${DEFAULT_API_URL}, the local stack), --region R, --sigv4
  auth: API_TOKEN as a bearer token when set; else SigV4 with your AWS credentials for a non-loopback URL`;

export interface CliDeps extends CommandIo {
  /** The process environment, read here once. */
  readonly env: Env;
  readonly fetch?: typeof fetch;
  /** The caller's AWS credentials (default: the SDK's default chain). */
  readonly credentials?: AwsCredentialsProvider;
}

/** Runs one command; the result is the process exit code (0 ok, 1 failed or invalid, 2 usage). */
export async function runCli(argv: readonly string[], deps: CliDeps): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    deps.err(`${errorMessage(error)}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  try {
    switch (command) {
      case 'validate': {
        if (rest.length > 1) break;
        const path = rest[0] ?? deps.env.FLEET_CONFIG ?? 'fleet.yaml';
        const result = await validateFleetPath(path, values.local === true ? 'local' : 'deployed', deps.env);
        for (const line of result.lines) (result.ok ? deps.out : deps.err)(line);
        return result.ok ? 0 : 1;
      }
      case 'rollout':
        if (rest.length !== 1 || rest[0] === undefined) break;
        return await printRollout(await readApi(values, deps), rest[0], deps);
      case 'rollouts':
        if (rest.length !== 0) break;
        return await printRollouts(
          await readApi(values, deps),
          { repo: values.repo, ref: values.ref, limit: values.limit, cursor: values.cursor },
          deps,
        );
      case 'findings':
        if (rest.length !== 0) break;
        return await printFindings(
          await readApi(values, deps),
          {
            cluster: values.cluster,
            severity: values.severity,
            rule: values.rule,
            cursor: values.cursor,
            ...(values.resolved === true ? { resolved: 'true' } : {}),
          },
          deps,
        );
      case undefined:
      case 'help':
        deps.out(USAGE);
        return command === undefined ? 2 : 0;
    }
  } catch (error) {
    deps.err(error instanceof ReadApiError ? error.message : `gitops-sync: ${errorMessage(error)}`);
    return 1;
  }
  deps.err(USAGE);
  return 2;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      local: { type: 'boolean' },
      url: { type: 'string' },
      region: { type: 'string' },
      sigv4: { type: 'boolean' },
      repo: { type: 'string' },
      ref: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
      cluster: { type: 'string' },
      severity: { type: 'string' },
      rule: { type: 'string' },
      resolved: { type: 'boolean' },
    },
  });
}

async function readApi(values: ReturnType<typeof parse>['values'], deps: CliDeps) {
  const base = values.url ?? deps.env.GITOPS_SYNC_URL ?? DEFAULT_API_URL;
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new ReadApiError(`--url ${base}: must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ReadApiError(`--url ${base}: must be an absolute http(s) URL`);
  return createReadApi(base, await authFor(url, values, deps), deps.fetch);
}

async function authFor(
  url: URL,
  values: { region?: string; sigv4?: boolean },
  deps: CliDeps,
): Promise<ReadApiAuth> {
  const token = deps.env.API_TOKEN?.trim();
  if (token) return { kind: 'bearer', token };
  if (isLoopback(url) && values.sigv4 !== true) return { kind: 'none' };
  const region =
    values.region ?? regionOfApiUrl(url) ?? deps.env.AWS_REGION ?? deps.env.AWS_DEFAULT_REGION ?? 'us-east-1';
  const credentials = deps.credentials ?? (await defaultCredentials());
  return { kind: 'sigv4', region, credentials };
}

async function defaultCredentials(): Promise<AwsCredentialsProvider> {
  const { fromNodeProviderChain } = await import('@aws-sdk/credential-providers');
  return fromNodeProviderChain();
}
