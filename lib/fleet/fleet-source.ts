import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Config, FleetLocation } from '../config.js';
import { ConfigError, FleetConfigError } from '../errors.js';
import type { Clock, Logger } from '../ports.js';
import type { FleetConfig } from './fleet-config.js';
import { checkFleetFile } from './fleet-file.js';
import type { FleetMode } from './yaml-reader.js';

/** The fleet every function works from: validated, cached, re-read after `FLEET_TTL_SECONDS`. */
export interface FleetSource {
  /** Where the fleet comes from, for logs: a path, `ssm:/x` or `s3://bucket/key`. */
  readonly name: string;
  /** The last valid fleet; rejects (with every problem) while there has never been a valid one. */
  current(): Promise<FleetConfig>;
}

/** The text of a fleet kept in SSM or S3 (the AWS adapter in lib/aws implements it). */
export type FleetTextReader = (location: FleetLocation) => Promise<string>;

export interface FleetSourceDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly mode: FleetMode;
  readonly readRemote?: FleetTextReader;
  readonly readLocal?: (path: string) => Promise<string>;
}

type SourceConfig = Pick<Config, 'fleetConfigPath' | 'fleetSource' | 'fleetTtlSeconds'> &
  Partial<Pick<Config, 'awsScopes'>>;

/** A fleet given as it is (the local simulator, tests): never re-read. */
export function fixedFleetSource(fleet: FleetConfig, name = 'simulated fleet'): FleetSource {
  return { name, current: async () => fleet };
}

/**
 * `FLEET_SOURCE` (SSM parameter or S3 object), else `FLEET_CONFIG` (a file), read on first use and again
 * once the TTL has passed. An invalid or unreadable re-read keeps the last valid fleet and logs an error;
 * an unchanged text keeps the same `FleetConfig` object, so callers can rebuild only on a real change.
 */
export function createFleetSource(config: SourceConfig, deps: FleetSourceDeps): FleetSource {
  const location = config.fleetSource;
  const path = config.fleetConfigPath;
  const name = location === undefined ? (path ?? 'FLEET_CONFIG') : describeLocation(location);
  const read = async (): Promise<string> => {
    if (location !== undefined) {
      if (deps.readRemote === undefined) throw new ConfigError('FLEET_SOURCE', 'has no reader');
      return deps.readRemote(location);
    }
    if (path === undefined)
      throw new ConfigError('FLEET_CONFIG', 'or FLEET_SOURCE is required by fanout, track and reconcile');
    return (deps.readLocal ?? ((p: string) => readFile(p, 'utf8')))(path);
  };
  const ttlMs = config.fleetTtlSeconds * 1000;
  let state: { fleet?: FleetConfig; digest?: string | undefined; error?: Error; readAt: number } | undefined;
  let reading: Promise<void> | undefined;

  const refresh = async (): Promise<void> => {
    const readAt = deps.clock.now().getTime();
    const keep = state?.fleet === undefined ? {} : { fleet: state.fleet, digest: state.digest };
    let text: string;
    try {
      text = await read();
    } catch (error) {
      const problem = error instanceof ConfigError ? error : unreadable(name, error);
      deps.logger.error('fleet is unreadable', { source: name, error: problem.message, ...kept(keep) });
      state = { ...keep, error: problem, readAt };
      return;
    }
    const digest = createHash('sha256').update(text).digest('hex');
    if (state?.fleet !== undefined && state.digest === digest) {
      state = { ...state, readAt };
      return;
    }
    // Deployed, the fleet must stay inside what the functions' policies allow (lib/fleet/aws-scopes.ts).
    const scopes = config.awsScopes === undefined ? {} : { scopes: config.awsScopes };
    const result = checkFleetFile(text, name, { mode: deps.mode, ...scopes });
    if (result.ok) {
      if (state?.fleet !== undefined) deps.logger.info('fleet reloaded', { source: name });
      state = { fleet: result.fleet, digest, readAt };
      return;
    }
    deps.logger.error('fleet is invalid', { source: name, problems: [...result.problems], ...kept(keep) });
    state = { ...keep, error: new FleetConfigError(name, result.problems), readAt };
  };

  return {
    name,
    async current() {
      if (state === undefined || deps.clock.now().getTime() - state.readAt >= ttlMs) {
        reading ??= refresh().finally(() => {
          reading = undefined;
        });
        await reading;
      }
      if (state?.fleet !== undefined) return state.fleet;
      throw state?.error ?? new FleetConfigError(name, [`${name}: not read`]);
    },
  };
}

export function describeLocation(location: FleetLocation): string {
  return location.kind === 'ssm' ? `ssm:${location.name}` : `s3://${location.bucket}/${location.key}`;
}

function kept(keep: { fleet?: FleetConfig }): { keeping?: string } {
  return keep.fleet === undefined ? {} : { keeping: 'the last valid fleet' };
}

/** Names the failure by its code only: an SDK or file error text is not ours to echo. */
function unreadable(name: string, error: unknown): FleetConfigError {
  const e = error as { code?: unknown; name?: unknown; $metadata?: { httpStatusCode?: number } };
  const code = typeof e.code === 'string' ? e.code : typeof e.name === 'string' ? e.name : 'error';
  const status = e.$metadata?.httpStatusCode;
  return new FleetConfigError(
    name,
    [`${name}: cannot be read (${code}${status ? `, HTTP ${status}` : ''})`],
    {
      cause: error,
    },
  );
}
