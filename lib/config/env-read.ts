import { ConfigError } from '../errors.js';

/** The environment settings are read from (the process's, or a test's). */
export type Env = Readonly<Record<string, string | undefined>>;

/*
 * The readers every setting goes through: each names the variable in its error and never echoes a
 * value (some are secrets).
 */

export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

export function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

export function required(env: Env, name: string): string {
  const value = text(env, name);
  if (value === undefined) throw new ConfigError(name, 'is required');
  return value;
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, 'must be a whole number');
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}`);
  return value;
}

export function url(env: Env, name: string): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be an absolute http(s) URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(name, 'must be an absolute http(s) URL');
  }
  return raw;
}

export function arn(env: Env, name: string, service: string): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  if (!new RegExp(`^arn:aws[a-z-]*:${service}:[a-z0-9-]+:\\d{12}:`).test(raw)) {
    throw new ConfigError(name, `must be an ARN of ${service}`);
  }
  return raw;
}

export function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const match = values.find((v) => v === raw.toUpperCase() || v === raw);
  if (match === undefined) throw new ConfigError(name, `must be one of ${values.join(', ')}`);
  return match;
}

/** Several comma-separated values are accepted so a secret can be rotated without downtime. */
export function secretList(env: Env, name: string): readonly string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  const values = raw.split(',').map((v) => v.trim());
  if (values.some((v) => v === ''))
    throw new ConfigError(name, 'has an empty entry in its comma-separated list');
  return values;
}
