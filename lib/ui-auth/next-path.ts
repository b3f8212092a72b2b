/** Where a login lands when `next` is missing or not a page of this site. */
export const DEFAULT_NEXT = '/ui/';

const BASE = 'https://gitops-sync.invalid';
const LOGIN_PATHS = new Set(['/ui/login', '/ui/callback', '/ui/logout']);

/**
 * `next` as a path of this site's pages only: anything a browser could read as another origin (`//evil`,
 * `/\evil`, `https://evil`, control characters) or a path outside `/ui` becomes the default.
 */
export function safeNextPath(raw: string | undefined): string {
  if (raw === undefined || raw.length === 0 || raw.length > 2048) return DEFAULT_NEXT;
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\')) return DEFAULT_NEXT;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (/[\u0000-\u001f\u007f]/.test(raw)) return DEFAULT_NEXT;
  let url: URL;
  try {
    url = new URL(raw, BASE);
  } catch {
    return DEFAULT_NEXT;
  }
  if (url.origin !== BASE) return DEFAULT_NEXT;
  const path = url.pathname;
  if (path !== '/ui' && !path.startsWith('/ui/')) return DEFAULT_NEXT;
  if (path.startsWith('//') || LOGIN_PATHS.has(path.replace(/\/+$/, ''))) return DEFAULT_NEXT;
  return `${path}${url.search}`;
}
