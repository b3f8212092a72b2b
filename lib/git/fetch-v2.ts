import type { HttpClient } from 'isomorphic-git';
import type { GitAuthCallbacks } from './credentials.js';
import { postV2Command, saysNothingOfTheProtocol } from './protocol-v2.js';

// A commit's objects in one request, with protocol v2's `fetch` command. isomorphic-git's fetch speaks v1:
// it first GETs the host's ref advertisement, every ref of the repository (GitHub lists two `refs/pull/*` per
// pull request ever opened: 20,000 of them are 1.3 MB and ~75 ms of CPU a fetch), then POSTs its wants.
// Asking by SHA needs no ref at all.

/** What the host sent: the pack (side-band framing removed) and how the shallow boundary moved. */
export interface FetchedPack {
  readonly pack: Buffer;
  readonly shallow: readonly string[];
  readonly unshallow: readonly string[];
}

export interface PackRequest {
  /** The repository's URL as fetched (allow-list already checked). */
  readonly url: string;
  readonly sha: string;
  /** A commit the directory holds and its shallow boundary: the host sends what `sha` adds, as a thin pack. */
  readonly have?: { readonly sha: string; readonly shallow: readonly string[] };
  readonly http: HttpClient;
  readonly auth: GitAuthCallbacks;
}

/**
 * Why a host gave no pack: `not-spoken` when it answered but not that way (no protocol v2, a refused want,
 * an answer not understood: it will not next time either), `not-now` when it failed the request (auth, not
 * found, rate limit, a server error: the v1 way meets the same answer, and reports it).
 */
export type NoPack = 'not-spoken' | 'not-now';

/**
 * One `command=fetch` (`Git-Protocol: version=2`): `want` the SHA, `deepen 1`, `done`, with the held
 * commit's `have` and `shallow` lines when there is one. Without a pack (`NoPack`) the caller fetches the
 * v1 way. A transport failure (deadline, unreachable, too large) throws, as the v1 way would meet the same
 * host.
 */
export async function fetchPackV2(request: PackRequest): Promise<FetchedPack | NoPack> {
  const answer = await postV2Command({
    url: request.url,
    command: 'fetch',
    args: fetchArgs(request),
    http: request.http,
    auth: request.auth,
  });
  if (answer.statusCode !== 200)
    return saysNothingOfTheProtocol(answer.statusCode) ? 'not-now' : 'not-spoken';
  return parseFetchResponse(answer.body) ?? 'not-spoken';
}

/** The fetch's argument lines. */
export function fetchArgs({ sha, have }: Pick<PackRequest, 'sha' | 'have'>): string[] {
  return [
    ...(have === undefined ? [] : ['thin-pack']),
    'ofs-delta',
    'no-progress',
    `want ${sha}`,
    ...(have?.shallow ?? []).map((oid) => `shallow ${oid}`),
    'deepen 1',
    ...(have === undefined ? [] : [`have ${have.sha}`]),
    'done',
  ];
}

/**
 * A v2 fetch answer: sections (`shallow-info`, `packfile`; a delimiter between them), the pack's bytes on
 * side-band 1, progress on 2, a fatal error on 3. Anything else than a whole answer with a pack (an `ERR`
 * line, an error band, `packfile-uris`, a cut, no `PACK` header) is `undefined`.
 */
export function parseFetchResponse(body: Buffer): FetchedPack | undefined {
  const shallow: string[] = [];
  const unshallow: string[] = [];
  const pack: Buffer[] = [];
  let section: string | undefined;
  let ended = false;
  let at = 0;
  while (at + 4 <= body.length && !ended) {
    const hex = body.subarray(at, at + 4).toString('latin1');
    if (!/^[0-9a-f]{4}$/i.test(hex)) return undefined;
    const length = Number.parseInt(hex, 16);
    if (length < 4) {
      // 0000 flush: the answer's end; 0001 delimiter: a new section follows; 0002: response end.
      if (length === 0 || length === 2) ended = section === 'packfile';
      if (length === 1) section = undefined;
      at += 4;
      continue;
    }
    if (at + length > body.length) return undefined;
    const payload = body.subarray(at + 4, at + length);
    at += length;
    if (section === 'packfile') {
      if (payload[0] === 1) pack.push(payload.subarray(1));
      else if (payload[0] === 3) return undefined;
      continue;
    }
    const text = payload.toString('utf8').replace(/\n$/, '');
    if (text.startsWith('ERR ')) return undefined;
    if (section === undefined) {
      section = text;
      if (!['shallow-info', 'packfile', 'acknowledgments'].includes(text)) return undefined;
      continue;
    }
    if (section === 'shallow-info') {
      const [kind, oid] = text.split(' ');
      if (oid === undefined || !/^[0-9a-f]{40}$/.test(oid)) return undefined;
      if (kind === 'shallow') shallow.push(oid);
      else if (kind === 'unshallow') unshallow.push(oid);
      else return undefined;
    }
  }
  const whole = Buffer.concat(pack);
  if (!ended || whole.length < 32 || whole.subarray(0, 4).toString('latin1') !== 'PACK') return undefined;
  return { pack: whole, shallow, unshallow };
}
