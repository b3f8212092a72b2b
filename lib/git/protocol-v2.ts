import type { HttpClient } from 'isomorphic-git';
import type { GitAuthCallbacks } from './credentials.js';
import { collect, inOnePiece } from './http-client.js';
import { pktLine } from './pkt-line.js';

// A protocol v2 command in one POST to `git-upload-pack`, without the capability advertisement's GET first
// (the command and its arguments are all a host needs; isomorphic-git reads the advertisement before each).
// A host that does not speak v2 reads the body as a v1 request and answers with something else than the
// command's answer: the caller then asks the v1 way, and the container remembers the host.

export interface V2Request {
  /** The repository's URL as fetched (allow-list already checked). */
  readonly url: string;
  /** `fetch`, `ls-refs`. */
  readonly command: string;
  /** The command's argument lines, each without its `\n`. */
  readonly args: readonly string[];
  readonly http: HttpClient;
  readonly auth: GitAuthCallbacks;
}

export interface V2Answer {
  readonly statusCode: number;
  readonly body: Buffer;
}

/** The command sent (`Git-Protocol: version=2`, the credentials up front) and its answer read whole. */
export async function postV2Command(request: V2Request): Promise<V2Answer> {
  const credentials = await request.auth.onAuth?.(request.url, {});
  const authorization =
    credentials?.username === undefined && credentials?.password === undefined
      ? undefined
      : `Basic ${Buffer.from(`${credentials?.username ?? ''}:${credentials?.password ?? ''}`).toString('base64')}`;
  const response = await request.http.request({
    url: `${request.url.replace(/\/+$/, '')}/git-upload-pack`,
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-git-upload-pack-request',
      Accept: 'application/x-git-upload-pack-result',
      'Git-Protocol': 'version=2',
      ...(authorization === undefined ? {} : { Authorization: authorization }),
    },
    body: inOnePiece(commandBody(request.command, request.args)),
  });
  return { statusCode: response.statusCode, body: await collect(response.body ?? []) };
}

/** The request's pkt-lines: the command, a delimiter, the arguments, a flush. */
export function commandBody(command: string, args: readonly string[]): Buffer {
  return Buffer.concat([
    pktLine(`command=${command}\n`),
    Buffer.from('0001'),
    ...args.map((line) => pktLine(`${line}\n`)),
    Buffer.from('0000'),
  ]);
}

/**
 * An HTTP status that says nothing about the protocol (auth, not found, a timeout, a rate limit, a server
 * error): the same request may succeed another time, and the v1 way would meet the same answer.
 */
export function saysNothingOfTheProtocol(statusCode: number): boolean {
  return [401, 403, 404, 408, 429].includes(statusCode) || statusCode >= 500;
}

/** Repository URLs whose host did not answer a protocol v2 command (bounded): they are asked the v1 way. */
const V1_ONLY = new Set<string>();
const V1_ONLY_MAX = 256;

export const v1OnlyHosts = {
  has: (url: string): boolean => V1_ONLY.has(url),
  add(url: string): void {
    if (V1_ONLY.size >= V1_ONLY_MAX) V1_ONLY.clear();
    V1_ONLY.add(url);
  },
};
