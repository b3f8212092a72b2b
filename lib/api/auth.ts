import { createHash, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from '../errors.js';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** `Authorization: Bearer <API_TOKEN>` when a token is configured; compared in constant time. */
export function requireBearer(headers: Readonly<Record<string, string>>, apiToken: string | undefined): void {
  if (apiToken === undefined) return;
  const header = headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (match?.[1] === undefined || !timingSafeEqual(digest(match[1]), digest(apiToken))) {
    throw new UnauthorizedError('a valid bearer token is required', { code: 'unauthorized' });
  }
}
