import { parse } from 'yaml';
import { UpstreamError } from '../errors.js';

export interface SecretCredentials {
  readonly token: string;
  readonly server?: string;
  readonly caData?: string;
}

/**
 * Reads a `tokenSecret` value: a bare bearer token, JSON `{"token": "..."}`, or a kubeconfig whose current
 * context's user has a `token` (its cluster's `server` and `certificate-authority-data` come along).
 * Errors never quote the value.
 */
export function parseTokenSecret(secretId: string, value: string): SecretCredentials {
  const text = value.trim();
  if (text === '') throw invalid(secretId, 'is empty');
  if (/^[\x21-\x7e]+$/.test(text) && !text.startsWith('{')) return { token: text };
  let document: unknown;
  try {
    document = text.startsWith('{') ? JSON.parse(text) : parse(text);
  } catch {
    throw invalid(secretId, 'is neither a bearer token, JSON {"token"} nor a kubeconfig');
  }
  if (!isRecord(document))
    throw invalid(secretId, 'is neither a bearer token, JSON {"token"} nor a kubeconfig');
  if (typeof document.token === 'string' && document.token.trim() !== '')
    return { token: document.token.trim() };
  if (!Array.isArray(document.contexts)) throw invalid(secretId, 'has no "token" and is not a kubeconfig');
  return fromKubeconfig(secretId, document);
}

function fromKubeconfig(secretId: string, config: Record<string, unknown>): SecretCredentials {
  const current = config['current-context'];
  const contexts = namedEntries(config.contexts, 'context');
  const context =
    typeof current === 'string' && current !== ''
      ? contexts.get(current)
      : contexts.size === 1
        ? [...contexts.values()][0]
        : undefined;
  if (context === undefined) throw invalid(secretId, 'kubeconfig has no current context');
  const cluster = namedEntries(config.clusters, 'cluster').get(String(context.cluster));
  const user = namedEntries(config.users, 'user').get(String(context.user));
  if (user === undefined || typeof user.token !== 'string' || user.token.trim() === '') {
    // exec plugins and client certificates cannot run inside the orchestrator.
    throw invalid(
      secretId,
      "kubeconfig's current user has no token (exec and client certificates are not supported)",
    );
  }
  const server = cluster?.server;
  const caData = cluster?.['certificate-authority-data'];
  return {
    token: user.token.trim(),
    ...(typeof server === 'string' && server !== '' ? { server } : {}),
    ...(typeof caData === 'string' && caData !== '' ? { caData } : {}),
  };
}

function namedEntries(list: unknown, field: string): Map<string, Record<string, unknown>> {
  const entries = new Map<string, Record<string, unknown>>();
  if (!Array.isArray(list)) return entries;
  for (const entry of list) {
    if (isRecord(entry) && typeof entry.name === 'string' && isRecord(entry[field])) {
      entries.set(entry.name, entry[field] as Record<string, unknown>);
    }
  }
  return entries;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(secretId: string, problem: string): UpstreamError {
  return new UpstreamError(`cluster credentials secret ${secretId} ${problem}`, {
    retryable: false,
    code: 'cluster-credentials',
  });
}
