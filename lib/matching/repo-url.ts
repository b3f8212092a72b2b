/**
 * One key per Git repository, e.g. `github.com/org/gitops`, so that every spelling of a repository URL
 * (web, HTTPS clone, SSH, scp-style, with credentials or a port) lands on the same key.
 */
const SCHEMES = new Set(['https', 'http', 'ssh', 'git', 'git+ssh']);
const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//;
const HOST = /^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*|\[[0-9a-f:.]+\])$/;
// Argo CD's GetWebURLRegex accepts an optional `ssh.`/`altssh.` in front of any web host
// (`ssh.github.com:443`, `altssh.gitlab.com:443`); folding it keeps us at least as broad.
const SSH_ALIAS = /^(?:alt)?ssh\.(?=[^.]+\.[^.]+)/;

interface Authority {
  readonly host: string;
  readonly path: string;
}

function splitSchemeUrl(rest: string): Authority | undefined {
  const slash = rest.indexOf('/');
  if (slash < 0) return undefined;
  const authority = rest.slice(0, slash);
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  const host = hostPort.startsWith('[')
    ? hostPort.slice(0, hostPort.indexOf(']') + 1)
    : hostPort.replace(/:[0-9]*$/, '');
  const port = hostPort.slice(host.length);
  if (port !== '' && !/^:[0-9]*$/.test(port)) return undefined;
  return { host, path: rest.slice(slash + 1) };
}

/** `[user@]host:path` (scp-style) or `[user@]host[:port]/path` with no scheme. */
function splitSchemeless(text: string): Authority | undefined {
  const firstSlash = text.indexOf('/');
  const head = firstSlash < 0 ? text : text.slice(0, firstSlash);
  const rest = text.slice(head.lastIndexOf('@') + 1);
  const slash = rest.indexOf('/');
  const colon = rest.indexOf(':');
  // git reads `host:123/x` as the scp path `123/x` too, not as a port.
  if (colon >= 0 && (slash < 0 || colon < slash)) {
    return { host: rest.slice(0, colon), path: rest.slice(colon + 1) };
  }
  return splitSchemeUrl(rest);
}

function trimPath(path: string): string {
  const withoutSlash = path.endsWith('/') ? path.slice(0, -1) : path;
  return withoutSlash.endsWith('.git') ? withoutSlash.slice(0, -'.git'.length) : withoutSlash;
}

/**
 * The canonical key of a Git repository URL, or undefined when the text is not one (empty, whitespace
 * inside, a non-Git scheme such as `oci://`, no repository path, a query or fragment). Case-insensitive;
 * scheme, user info (also `user:token@`), port, one trailing `/` and one `.git` are ignored. Never echo the
 * input in logs: it may carry a token.
 */
export function canonicalRepoKey(url: string): string | undefined {
  const text = url.trim().toLowerCase();
  if (text === '' || /[\s?#\\]/.test(text)) return undefined;
  const scheme = SCHEME.exec(text);
  if (scheme && !SCHEMES.has(scheme[1] ?? '')) return undefined;
  const parts = scheme ? splitSchemeUrl(text.slice(scheme[0].length)) : splitSchemeless(text);
  if (!parts || !HOST.test(parts.host)) return undefined;
  const path = trimPath(parts.path);
  if (path === '') return undefined;
  return `${parts.host.replace(SSH_ALIAS, '')}/${path}`;
}

/** Distinct keys of the URLs that parse; the rest are dropped. */
export function canonicalRepoKeys(urls: Iterable<string>): Set<string> {
  const keys = new Set<string>();
  for (const url of urls) {
    const key = canonicalRepoKey(url);
    if (key !== undefined) keys.add(key);
  }
  return keys;
}
