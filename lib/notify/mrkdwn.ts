/** Slack mrkdwn treats only these three as control characters; everything else is shown as written. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const CREDENTIAL_PATTERNS: readonly [RegExp, string][] = [
  // user info in URLs (`https://user:token@host`) as Argo CD and Git errors sometimes print them
  [/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1***@'],
  [/\bxox[abeoprs]-[A-Za-z0-9-]+/g, 'xox*-***'],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, 'gh*_***'],
  [/\bglpat-[A-Za-z0-9_-]{10,}/g, 'glpat-***'],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 ***'],
];

/** Masks credentials that free text from clusters or Git hosts may carry before it reaches Slack. */
export function redactCredentials(text: string): string {
  let out = text;
  for (const [pattern, replacement] of CREDENTIAL_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** Free text for mrkdwn: credentials masked, control characters escaped, cut to `max` characters. */
export function safeText(text: string, max: number): string {
  return escapeMrkdwn(truncate(redactCredentials(text), max));
}

/** Cuts on a code point boundary and marks the cut; never longer than `max`. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** First non-empty line, with runs of whitespace folded: a commit title or a one-line reason. */
export function oneLine(text: string): string {
  const first = text.split(/\r?\n/).find((line) => line.trim() !== '') ?? '';
  return first.replace(/\s+/g, ' ').trim();
}

/** Whitespace (newlines included) folded to single spaces. */
export function folded(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * A link `<url|label>` when `url` is http(s), else the label alone. User info is dropped from the URL
 * (it can hold a token) and `|`, `<`, `>` are percent-encoded so the link cannot be broken out of.
 */
export function link(url: string | undefined, label: string): string {
  const safe = safeUrl(url);
  return safe === undefined ? label : `<${safe}|${label.replace(/\|/g, '¦')}>`;
}

export function safeUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  parsed.username = '';
  parsed.password = '';
  return parsed.href.replace(/\|/g, '%7C').replace(/</g, '%3C').replace(/>/g, '%3E').replace(/&/g, '&amp;');
}

/** Inline code: backticks inside would end it early, so they become a look-alike. */
export function code(text: string): string {
  return `\`${text.replace(/`/g, 'ˋ')}\``;
}
