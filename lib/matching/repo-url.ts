import { memoizeString } from '../string-memo.js';

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

/**
 * `ssh://git@github.com:org/repo.git` is not a valid URL (the port is not a number) but git and Argo CD
 * accept it: its `GetWebURLRegex` reads `host[:/]path`, so the text after the colon is the path.
 */
const SSH_SCHEMES = new Set(['ssh', 'git+ssh']);

function splitSchemeUrl(rest: string, scheme?: string): Authority | undefined {
  if (scheme !== undefined && SSH_SCHEMES.has(scheme)) {
    const scp = scpAfterSsh(rest);
    if (scp !== undefined) return scp;
  }
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

/** The host is followed by `:` and a path that does not start with a port number. */
function scpAfterSsh(rest: string): Authority | undefined {
  const end = rest.indexOf('/');
  const authority = end < 0 ? rest : rest.slice(0, end);
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  const colon = hostPort.indexOf(':');
  if (colon <= 0 || hostPort.startsWith('[')) return undefined;
  const first = hostPort.slice(colon + 1);
  if (first === '' || /^[0-9]+$/.test(first)) return undefined;
  return { host: hostPort.slice(0, colon), path: `${first}${end < 0 ? '' : rest.slice(end)}` };
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
export const canonicalRepoKey: (url: string) => string | undefined = memoizeString(repoKeyOf);

function repoKeyOf(url: string): string | undefined {
  const text = url.trim().toLowerCase();
  if (text === '' || /[\s?#\\]/.test(text)) return undefined;
  const scheme = SCHEME.exec(text);
  if (scheme && !SCHEMES.has(scheme[1] ?? '')) return undefined;
  const parts = scheme ? splitSchemeUrl(text.slice(scheme[0].length), scheme[1]) : splitSchemeless(text);
  if (!parts || !HOST.test(parts.host)) return undefined;
  const path = trimPath(parts.path);
  if (path === '') return undefined;
  return hostFolds(parts.host.replace(SSH_ALIAS, ''), path);
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

const AZURE_SSH = /^v3\/([^/]+)\/([^/]+)\/([^/]+)$/;
const AZURE_SHORT = /^_git\/([^/]+)$/;
const VISUAL_STUDIO = /^([a-z0-9-]+)\.visualstudio\.com$/;
// Bitbucket Server / Data Center: http clone `[/context]/scm/P/r`, web `[/context]/projects/P/repos/r/browse`
// and `/users/u/repos/r` (personal), ssh clone `P/r` and `~u/r`, all onto `p/r` / `~u/r`.
const SERVER_CLONE = /^(?:[^/]+\/)?scm\/([^/]+)\/([^/]+)$/;
const SERVER_PROJECT_WEB = /^(?:[^/]+\/)?projects\/([^/]+)\/repos\/([^/]+)(?:\/browse(?:\/.*)?)?$/;
const SERVER_USER_WEB = /^(?:[^/]+\/)?users\/([^/]+)\/repos\/([^/]+)(?:\/browse(?:\/.*)?)?$/;

/**
 * Hosts whose clone URLs do not share one path layout: Azure DevOps (`dev.azure.com/o/p/_git/r`, the
 * legacy `o.visualstudio.com/p/_git/r`, ssh `ssh.dev.azure.com:v3/o/p/r` and `vs-ssh.visualstudio.com:v3/…`,
 * and `o/_git/r` for a repository named like its project) and Bitbucket Server. Argo CD matches none of
 * these across forms (issue #16854); matching them can only add refreshes, never lose one.
 */
function hostFolds(host: string, path: string): string {
  const azureSsh =
    host === 'dev.azure.com' || host === 'vs-ssh.visualstudio.com' ? AZURE_SSH.exec(path) : null;
  if (azureSsh !== null) return `dev.azure.com/${azureSsh[1]}/${azureSsh[2]}/_git/${azureSsh[3]}`;
  const org = VISUAL_STUDIO.exec(host)?.[1];
  if (org !== undefined && org !== 'vs-ssh') {
    return azurePath(org, path.replace(/^defaultcollection\//, ''));
  }
  if (host === 'dev.azure.com') {
    const slash = path.indexOf('/');
    if (slash > 0) return azurePath(path.slice(0, slash), path.slice(slash + 1));
  }
  const server = SERVER_CLONE.exec(path) ?? SERVER_PROJECT_WEB.exec(path);
  if (server !== null) return `${host}/${server[1]}/${server[2]}`;
  const personal = SERVER_USER_WEB.exec(path);
  if (personal !== null) return `${host}/~${personal[1]}/${personal[2]}`;
  return `${host}/${path}`;
}

function azurePath(org: string, rest: string): string {
  const short = AZURE_SHORT.exec(rest);
  return short === null
    ? `dev.azure.com/${org}/${rest}`
    : `dev.azure.com/${org}/${short[1]}/_git/${short[1]}`;
}
