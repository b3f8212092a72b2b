import type { GitHttpRequest, GitHttpResponse } from 'isomorphic-git';
import { describe, expect, it } from 'vitest';
import { thinPackTransport } from '../../../lib/git/thin-pack.js';

const pkt = (line: string) => (line.length + 4).toString(16).padStart(4, '0') + line;
const OID = 'a'.repeat(40);
const URL = 'https://git.example/org/apps.git';

/** A ref advertisement offering `caps`, and a host that records each upload-pack request's body. */
function host(caps: string, status = 200) {
  const posted: string[] = [];
  const body = (text: string) =>
    (async function* () {
      yield Buffer.from(text, 'latin1');
    })();
  const answer = (request: GitHttpRequest, statusCode: number, text: string): GitHttpResponse => ({
    url: request.url,
    method: request.method ?? 'GET',
    statusCode,
    statusMessage: '',
    headers: {},
    body: body(text),
  });
  const http = {
    async request(request: GitHttpRequest): Promise<GitHttpResponse> {
      if (request.method === 'POST') {
        const parts: Uint8Array[] = [];
        for await (const part of request.body ?? []) parts.push(part);
        posted.push(Buffer.concat(parts).toString('latin1'));
        return answer(request, 200, '0008NAK\n');
      }
      const advertisement = `${pkt('# service=git-upload-pack\n')}0000${pkt(`${OID} HEAD\0${caps}\n`)}${pkt(`${OID} refs/heads/main\n`)}0000`;
      return answer(request, status, advertisement);
    },
  };
  return { http, posted };
}

const want = `${pkt(`want ${'b'.repeat(40)} multi_ack_detailed side-band-64k ofs-delta\n`)}${pkt(`shallow ${OID}\n`)}0000${pkt(`have ${OID}\n`)}${pkt('done\n')}`;

async function fetchThrough(transport: ReturnType<typeof thinPackTransport>): Promise<string> {
  const advertised = await transport.request({
    url: `${URL}/info/refs?service=git-upload-pack`,
    method: 'GET',
  });
  const parts: Uint8Array[] = [];
  for await (const part of advertised.body ?? []) parts.push(part);
  const text = Buffer.concat(parts).toString('latin1');
  await transport.request({
    url: `${URL}/git-upload-pack`,
    method: 'POST',
    body: (async function* () {
      yield Buffer.from(want, 'latin1');
    })(),
  });
  return text;
}

describe('the transport that asks for a thin pack', () => {
  it('adds thin-pack to the first want line, with its length, when the host offers it', async () => {
    const { http, posted } = host('multi_ack_detailed thin-pack side-band-64k ofs-delta shallow');
    const advertisement = await fetchThrough(thinPackTransport(http));
    expect(advertisement).toContain('refs/heads/main');
    const [body] = posted;
    const first = `want ${'b'.repeat(40)} multi_ack_detailed side-band-64k ofs-delta thin-pack\n`;
    expect(body).toBe(
      pkt(first) +
        want.slice(pkt(`want ${'b'.repeat(40)} multi_ack_detailed side-band-64k ofs-delta\n`).length),
    );
  });

  it('leaves the request alone when the host does not offer it, or its advertisement failed', async () => {
    for (const [caps, status] of [
      ['multi_ack_detailed side-band-64k ofs-delta shallow', 200],
      ['multi_ack_detailed thin-pack side-band-64k', 401],
    ] as const) {
      const { http, posted } = host(caps, status);
      await fetchThrough(thinPackTransport(http));
      expect(posted).toEqual([want]);
    }
  });
});
