import type { Evidence, JsonValue } from './types.js';

const MAX_TEXT = 500;
// `scheme://user:token@host` → `scheme://***@host`: repo URLs in Argo CD messages may carry credentials.
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi;

/** Strips URL credentials and bounds the length of text bound for a stored finding or Slack. */
export function redact(text: string, max = MAX_TEXT): string {
  const clean = text.replace(URL_USERINFO, '$1***@');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

export function sanitizeEvidence(evidence: Evidence): Evidence {
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(evidence)) out[key] = sanitizeValue(value);
  return out;
}

function sanitizeValue(value: JsonValue): JsonValue {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item: JsonValue) => sanitizeValue(item));
  if (value !== null && typeof value === 'object') return sanitizeEvidence(value as Evidence);
  return value;
}
