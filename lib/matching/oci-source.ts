/**
 * The image repository an Argo CD source pulls from, as `host/path` (lower-case, the key registry pushes
 * are matched on), or undefined for a source that is not an OCI one:
 * - `repoURL: oci://<host>/<path>` without `chart` (Argo CD 3.1+ OCI sources): `<host>/<path>`;
 * - a Helm OCI source, `repoURL: <host>/<base>` without a scheme (or `oci://<host>/<base>`) and
 *   `chart: <name>`: `<host>/<base>/<name>`, the repository Helm pushes the chart to.
 * A Helm repository over `http(s)://` serves an index, not an OCI repository: undefined.
 */
export function ociSourceKey(repoURL: string, chart: string | undefined): string | undefined {
  const text = repoURL.trim().toLowerCase();
  const oci = text.startsWith('oci://');
  if (!oci && (chart === undefined || text.includes('://'))) return undefined;
  const rest = trimSlashes(oci ? text.slice('oci://'.length) : text);
  const slash = rest.indexOf('/');
  const host = slash < 0 ? rest : rest.slice(0, slash);
  if (!HOST.test(host) || /[\s?#@\\]/.test(rest)) return undefined;
  const name = chart === undefined ? '' : trimSlashes(chart.trim().toLowerCase());
  const path = [slash < 0 ? '' : rest.slice(slash + 1), name].filter((part) => part !== '').join('/');
  return path === '' ? undefined : `${host}/${path}`;
}

// A registry host, with an optional port (local registries): `registry.example:5000`.
const HOST = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::[0-9]{1,5})?$/;

function trimSlashes(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === '/') start += 1;
  while (end > start && text[end - 1] === '/') end -= 1;
  return text.slice(start, end);
}
