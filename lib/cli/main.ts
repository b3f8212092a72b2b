import { parseArgs } from 'node:util';
import type { Env } from '../config.js';
import { errorMessage } from '../errors.js';
import { type AwsScopes, DEFAULT_DEPLOY_REGION, deployScopes, STAGE_NAME } from '../fleet/aws-scopes.js';
import type { AwsCredentialsProvider } from '../kubernetes/eks-token.js';
import { printFreezes, runFreeze, runRolloutAction, runUnfreeze, runUnpin } from './control-commands.js';
import { createReadApi, isLoopback, type ReadApiAuth, ReadApiError } from './read-api.js';
import { type CommandIo, printFindings, printRollout, printRollouts } from './read-commands.js';
import { RepoArgumentError, repoFilterOf } from './repo-filter.js';
import { regionOfApiUrl } from './sigv4.js';
import { type Command, DEFAULT_API_URL, isCommand, packageVersion, usage } from './usage.js';
import { validateFleetPath } from './validate.js';

export interface CliDeps extends CommandIo {
  /** The process environment, read here once. */
  readonly env: Env;
  readonly fetch?: typeof fetch;
  /** The caller's AWS credentials (default: the SDK's default chain). */
  readonly credentials?: AwsCredentialsProvider;
}

/** A command line that cannot run as given (exit 2, nothing sent). */
class UsageError extends Error {}

type Values = ReturnType<typeof parse>['values'];

/** Runs one command; the result is the process exit code (0 ok, 1 failed or refused, 2 usage). */
export async function runCli(argv: readonly string[], deps: CliDeps): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  const named = argv.find((arg) => !arg.startsWith('-'));
  try {
    parsed = parse(argv);
  } catch (error) {
    deps.err(`gitops-sync: ${errorMessage(error)}\n${usage(isCommand(named) ? named : undefined)}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.version === true && command === undefined) {
    deps.out(await packageVersion());
    return 0;
  }
  if (command === undefined || command === 'help' || !isCommand(command)) {
    const help = values.help === true || command === 'help';
    (help ? deps.out : deps.err)(usage(isCommand(rest[0]) ? rest[0] : undefined));
    return help ? 0 : 2;
  }
  if (values.help === true) {
    deps.out(usage(command));
    return 0;
  }
  try {
    const code = await runCommand(command, rest, values, deps);
    if (code !== undefined) return code;
  } catch (error) {
    if (error instanceof UsageError || error instanceof RepoArgumentError) {
      deps.err(`gitops-sync: ${error.message}`);
      return 2;
    }
    deps.err(error instanceof ReadApiError ? error.message : `gitops-sync: ${errorMessage(error)}`);
    return 1;
  }
  deps.err(usage(command));
  return 2;
}

/** The command's exit code, or undefined when its arguments do not fit it. */
async function runCommand(
  command: Command,
  rest: readonly string[],
  values: Values,
  deps: CliDeps,
): Promise<number | undefined> {
  const [first] = rest;
  const one = rest.length === 1 && first !== undefined;
  switch (command) {
    case 'validate': {
      if (rest.length > 1) return undefined;
      const path = first ?? deps.env.FLEET_CONFIG ?? 'fleet.yaml';
      if (values.stage !== undefined && values.local === true)
        throw new UsageError('--stage checks a deploy; it does not go with --local');
      const scopes = values.stage === undefined ? undefined : deployScopesOf(values.stage, values, deps.env);
      const mode = values.local === true ? 'local' : 'deployed';
      const result = await validateFleetPath(path, mode, deps.env, scopes);
      for (const line of result.lines) (result.ok ? deps.out : deps.err)(line);
      return result.ok ? 0 : 1;
    }
    case 'rollout':
      return one ? printRollout(await api(values, deps), first, deps) : undefined;
    case 'rollouts': {
      if (rest.length !== 0) return undefined;
      const repo = values.repo === undefined ? undefined : repoFilterOf(values.repo);
      const { ref, limit, cursor } = values;
      return printRollouts(await api(values, deps), { repo, ref, limit, cursor }, deps);
    }
    case 'findings': {
      if (rest.length !== 0) return undefined;
      const { cluster, severity, rule, cursor } = values;
      const resolved = values.resolved === true ? 'true' : undefined;
      return printFindings(await api(values, deps), { cluster, severity, rule, cursor, resolved }, deps);
    }
    case 'pause':
    case 'resume':
    case 'abort':
    case 'retry': {
      if (!one) return undefined;
      // 64 characters: a SHA-256 repository's commit, or a registry rollout's digest (docs/registry-triggers.md).
      if (!/^[0-9a-f]{7,64}$/i.test(first))
        throw new UsageError(`${first}: not a commit SHA or rollout key (7 to 64 hex characters)`);
      const options = {
        skipFailed: values['skip-failed'] === true,
        retry: { cluster: values.cluster, app: values.app },
      };
      return runRolloutAction(await api(values, deps), command, first, options, deps);
    }
    case 'freeze': {
      if (rest.length !== 0) return undefined;
      const reason = values.reason?.trim();
      if (!reason) throw new UsageError('freeze needs --reason TEXT');
      const { repo, cluster, until } = values;
      return runFreeze(await api(values, deps), { repo, cluster, reason, until }, deps);
    }
    case 'freezes':
      return rest.length === 0 ? printFreezes(await api(values, deps), deps) : undefined;
    case 'unfreeze':
      return one ? runUnfreeze(await api(values, deps), first, deps) : undefined;
    case 'unpin':
      if (rest.length !== 0) return undefined;
      if (values.repo !== undefined) repoFilterOf(values.repo); // refuses what is no repository
      return runUnpin(await api(values, deps), values.repo?.trim(), deps);
  }
}

/** What stage S's packaged policies allow, in `--region` (default serverless.yml's) and the deploy settings. */
function deployScopesOf(stage: string, values: Values, env: Env): AwsScopes {
  if (!STAGE_NAME.test(stage)) throw new UsageError(`--stage ${stage}: must be letters, digits and "-"`);
  return deployScopes(stage, values.region ?? DEFAULT_DEPLOY_REGION, env);
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean' },
      local: { type: 'boolean' },
      url: { type: 'string' },
      region: { type: 'string' },
      stage: { type: 'string' },
      sigv4: { type: 'boolean' },
      repo: { type: 'string' },
      ref: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
      cluster: { type: 'string' },
      severity: { type: 'string' },
      rule: { type: 'string' },
      resolved: { type: 'boolean' },
      'skip-failed': { type: 'boolean' },
      app: { type: 'string' },
      reason: { type: 'string' },
      until: { type: 'string' },
    },
  });
}

async function api(values: Values, deps: CliDeps) {
  const base = values.url ?? deps.env.GITOPS_SYNC_URL ?? DEFAULT_API_URL;
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new UsageError(`--url ${base}: must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UsageError(`--url ${base}: must be an absolute http(s) URL`);
  // Off loopback every request carries API_TOKEN or a SigV4 signature: never in clear text.
  if (url.protocol === 'http:' && !isLoopback(url))
    throw new UsageError(
      `--url ${url.origin}: credentials are only sent over https (plain http is for loopback)`,
    );
  return createReadApi(base, await authFor(url, values, deps), deps.fetch);
}

async function authFor(url: URL, values: Values, deps: CliDeps): Promise<ReadApiAuth> {
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
