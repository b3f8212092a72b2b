import type { SecretCheck } from './secret-check.js';

/** A manifest file that did not parse, as the Git reader reports it (`ManifestProblem` with `unparseable`). */
export interface ParseProblem {
  readonly path: string;
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
}

/** `file:line:column`, as far as the position is known. */
export function filePosition(file: string, line?: number, column?: number): string {
  if (line === undefined) return file;
  return column === undefined ? `${file}:${line}` : `${file}:${line}:${column}`;
}

/**
 * The `unparseable` check of a manifest file Git holds: Argo CD would fail the comparison on it, so the app
 * would not sync. The message names the file and position and the parser's code, never the content.
 */
export function unparseableCheck(problem: ParseProblem): SecretCheck {
  const { path, line, column } = problem;
  return {
    externalSecret: '(manifests)',
    field: 'manifests',
    outcome: 'unparseable',
    renderedBy: 'git',
    file: path,
    ...(line === undefined ? {} : { line }),
    ...(column === undefined ? {} : { column }),
    message: `${filePosition(path, line, column)}: the manifest does not parse (${problem.message.replace(/ at line \d+, column \d+$/, '')}); Argo CD would fail to compare this app`,
  };
}

// Go's YAML and JSON decoders as repo-server and kustomize report them (`Failed to unmarshal "a.yaml":
// error converting YAML to JSON: yaml: line 4: did not find expected ',' or ']'`, kustomize's
// `MalformedYAMLError: yaml: line 4: … in File: a.yaml`).
const PARSE_FAILURE =
  /Failed to unmarshal|error converting YAML to JSON|MalformedYAMLError|yaml: line \d+|json: cannot unmarshal|invalid character .+ looking for/i;

/**
 * Argo CD's answer to a render as an `unparseable` check, when it says a manifest does not parse (else
 * undefined: a render that failed for another reason, Argo CD being down, a token refused).
 */
export function unparseableFromArgoCd(reason: string): SecretCheck | undefined {
  if (!PARSE_FAILURE.test(reason)) return undefined;
  const file =
    /Failed to unmarshal \\?"([^"\\]+)\\?"/.exec(reason)?.[1] ?? /in File: (\S+)/.exec(reason)?.[1];
  const line = /\bline (\d+)/.exec(reason)?.[1];
  return {
    externalSecret: '(manifests)',
    field: 'manifests',
    outcome: 'unparseable',
    renderedBy: 'argocd',
    ...(file === undefined ? {} : { file }),
    ...(line === undefined ? {} : { line: Number(line) }),
    message: `Argo CD could not render this app, a manifest does not parse: ${reason}`,
  };
}
