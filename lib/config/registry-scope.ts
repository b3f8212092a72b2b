import { ConfigError } from '../errors.js';
import { type Env, optional, text } from './env-read.js';

/** The registry events this deployment takes: another account's or region's are ignored (202). */
export interface RegistryScope {
  readonly account?: string;
  readonly region?: string;
}

export function registryScope(env: Env): RegistryScope {
  const account = text(env, 'ECR_EVENTS_ACCOUNT');
  if (account !== undefined && !/^[0-9]{12}$/.test(account))
    throw new ConfigError('ECR_EVENTS_ACCOUNT', 'must be a 12-digit AWS account id');
  const region = text(env, 'ECR_EVENTS_REGION');
  if (region !== undefined && !/^[a-z]{2}(?:-[a-z]+)+-[0-9]$/.test(region))
    throw new ConfigError('ECR_EVENTS_REGION', 'must be an AWS region such as eu-west-1');
  return { ...optional('account', account), ...optional('region', region) };
}
