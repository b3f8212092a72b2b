import type { HttpClient } from 'isomorphic-git';
import type { GitAuthCallbacks } from './credentials.js';
import { postV2Command, saysNothingOfTheProtocol } from './protocol-v2.js';

// The refs under a few prefixes in one protocol v2 `ls-refs`, each prefix a `ref-prefix` line.
// isomorphic-git's `listServerRefs` takes one prefix and reads the capability advertisement first; a
// listing of branches, tags and HEAD without a prefix carries every `refs/pull/*` a GitHub repository has
// (two per pull request ever opened: 60,000 of them are 3.9 MB and ~160 ms of CPU).

/** One ref as the host listed it (the shape of isomorphic-git's `ServerRef`). */
export interface ListedRef {
  readonly ref: string;
  readonly oid: string;
  /** A symref's target (`HEAD` → `refs/heads/main`). */
  readonly target?: string | undefined;
  /** An annotated tag's commit. */
  readonly peeled?: string | undefined;
}

/** The listing; `not-spoken` when the host answered but not in v2; `failed` with a status that says nothing of it. */
export type LsRefsAnswer =
  | { readonly kind: 'listed'; readonly refs: readonly ListedRef[] }
  | { readonly kind: 'not-spoken' }
  | { readonly kind: 'failed'; readonly statusCode: number };

export interface LsRefsRequest {
  /** The repository's URL as fetched (allow-list already checked). */
  readonly url: string;
  /** Ref name prefixes (`refs/heads/`, `HEAD`); a name any of them starts is listed. */
  readonly prefixes: readonly string[];
  readonly http: HttpClient;
  readonly auth: GitAuthCallbacks;
}

/** `command=ls-refs` with `symrefs`, `peel` and the prefixes. A transport failure throws. */
export async function lsRefsV2(request: LsRefsRequest): Promise<LsRefsAnswer> {
  const answer = await postV2Command({
    url: request.url,
    command: 'ls-refs',
    args: lsRefsArgs(request.prefixes),
    http: request.http,
    auth: request.auth,
  });
  if (answer.statusCode !== 200)
    return saysNothingOfTheProtocol(answer.statusCode)
      ? { kind: 'failed', statusCode: answer.statusCode }
      : { kind: 'not-spoken' };
  const refs = parseLsRefsResponse(answer.body);
  return refs === undefined ? { kind: 'not-spoken' } : { kind: 'listed', refs };
}

export function lsRefsArgs(prefixes: readonly string[]): string[] {
  return ['symrefs', 'peel', ...prefixes.map((prefix) => `ref-prefix ${prefix}`)];
}

const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const PEELED = 'peeled:';
const SYMREF = 'symref-target:';

/**
 * An `ls-refs` answer: one pkt-line per ref (`<oid> <name>[ symref-target:<ref>][ peeled:<oid>]`), then a
 * flush. Anything else (an `ERR` line, a v1 advertisement, a cut before the flush, a line not of that
 * form) is `undefined`: the caller asks the v1 way.
 */
export function parseLsRefsResponse(body: Buffer): ListedRef[] | undefined {
  const refs: ListedRef[] = [];
  let at = 0;
  while (at + 4 <= body.length) {
    const hex = body.subarray(at, at + 4).toString('latin1');
    if (!/^[0-9a-f]{4}$/i.test(hex)) return undefined;
    const length = Number.parseInt(hex, 16);
    if (length === 0) return at + 4 === body.length ? refs : undefined;
    if (length < 4 || at + length > body.length) return undefined;
    const line = body
      .subarray(at + 4, at + length)
      .toString('utf8')
      .replace(/\n$/, '');
    at += length;
    const ref = parseRefLine(line);
    if (ref === undefined) return undefined;
    refs.push(ref);
  }
  return undefined;
}

function parseRefLine(line: string): ListedRef | undefined {
  const [oid, name, ...attributes] = line.split(' ');
  // `unborn` (an empty default branch) is only sent when asked for; a NUL is a v1 line's capabilities.
  if (oid === undefined || name === undefined || !OID.test(oid) || name === '' || name.includes('\0'))
    return undefined;
  let target: string | undefined;
  let peeled: string | undefined;
  for (const attribute of attributes) {
    if (attribute.startsWith(SYMREF)) target = attribute.slice(SYMREF.length);
    else if (attribute.startsWith(PEELED)) {
      peeled = attribute.slice(PEELED.length);
      if (!OID.test(peeled)) return undefined;
    }
    // An attribute of a later protocol revision is not this reader's business.
  }
  return {
    ref: name,
    oid,
    ...(target === undefined ? {} : { target }),
    ...(peeled === undefined ? {} : { peeled }),
  };
}
