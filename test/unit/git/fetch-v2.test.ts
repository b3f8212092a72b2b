import { describe, expect, it } from 'vitest';
import { fetchArgs, parseFetchResponse } from '../../../lib/git/fetch-v2.js';
import { commandBody } from '../../../lib/git/protocol-v2.js';

const pkt = (payload: string | Buffer) => {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'latin1') : payload;
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0')), body]);
};
const band = (n: number, data: string) => pkt(Buffer.concat([Buffer.from([n]), Buffer.from(data, 'latin1')]));
const PACK = `PACK${'\0'.repeat(40)}`;
const oid = (c: string) => c.repeat(40);
const answer = (...parts: Buffer[]) => Buffer.concat(parts);

describe('a protocol v2 fetch answer', () => {
  it('gives the pack from side-band 1 and the shallow boundary', () => {
    const got = parseFetchResponse(
      answer(
        pkt('shallow-info\n'),
        pkt(`shallow ${oid('a')}\n`),
        pkt(`unshallow ${oid('b')}\n`),
        Buffer.from('0001'),
        pkt('packfile\n'),
        band(2, 'Counting objects\n'),
        band(1, PACK.slice(0, 10)),
        band(1, PACK.slice(10)),
        Buffer.from('0000'),
      ),
    );
    expect(got?.pack.toString('latin1')).toBe(PACK);
    expect(got?.shallow).toEqual([oid('a')]);
    expect(got?.unshallow).toEqual([oid('b')]);
  });

  it.each([
    ['an ERR line', answer(pkt(`ERR upload-pack: not our ref ${oid('c')}\n`))],
    [
      'an error on band 3',
      answer(pkt('packfile\n'), band(1, PACK), band(3, 'fatal: gone\n'), Buffer.from('0000')),
    ],
    ['a cut before the flush', answer(pkt('packfile\n'), band(1, PACK))],
    ['a cut inside a line', answer(pkt('packfile\n'), band(1, PACK)).subarray(0, 20)],
    ['no pack header', answer(pkt('packfile\n'), band(1, 'NOTAPACK'.repeat(8)), Buffer.from('0000'))],
    ['pack URIs it cannot follow', answer(pkt('packfile-uris\n'), pkt(`${oid('d')} https://cdn/x\n`))],
    ['a v1 answer', answer(pkt('NAK\n'), band(1, PACK), Buffer.from('0000'))],
    ['no length', Buffer.from('zzzzpackfile')],
  ])('is not understood with %s (the caller fetches the v1 way)', (_, body) => {
    expect(parseFetchResponse(body)).toBeUndefined();
  });
});

describe('a protocol v2 fetch request', () => {
  it('wants the SHA one commit deep, and says what it holds as a thin pack on top', () => {
    expect(commandBody('fetch', fetchArgs({ sha: oid('e') })).toString('latin1')).toBe(
      `0012command=fetch\n0001000eofs-delta\n0010no-progress\n0032want ${oid('e')}\n000ddeepen 1\n0009done\n0000`,
    );
    const seeded = commandBody(
      'fetch',
      fetchArgs({ sha: oid('e'), have: { sha: oid('f'), shallow: [oid('f')] } }),
    ).toString('latin1');
    expect(seeded).toContain('000ethin-pack\n');
    expect(seeded).toContain(`0035shallow ${oid('f')}\n`);
    expect(seeded).toContain(`0032have ${oid('f')}\n0009done\n0000`);
  });
});
