import { describe, expect, it } from 'vitest';
import { lsRefsArgs, parseLsRefsResponse } from '../../../lib/git/ls-refs-v2.js';
import { commandBody } from '../../../lib/git/protocol-v2.js';

const pkt = (line: string) =>
  Buffer.from(`${(Buffer.byteLength(line) + 4).toString(16).padStart(4, '0')}${line}`);
const oid = (c: string) => c.repeat(40);
const answer = (...lines: string[]) => Buffer.concat([...lines.map(pkt), Buffer.from('0000')]);

describe('an ls-refs answer', () => {
  it('gives each ref with its symref target and peeled commit', () => {
    expect(
      parseLsRefsResponse(
        answer(
          `${oid('a')} HEAD symref-target:refs/heads/main\n`,
          `${oid('a')} refs/heads/main\n`,
          `${oid('b')} refs/tags/v2 peeled:${oid('c')}\n`,
          `${'d'.repeat(64)} refs/heads/sha256\n`,
        ),
      ),
    ).toEqual([
      { ref: 'HEAD', oid: oid('a'), target: 'refs/heads/main' },
      { ref: 'refs/heads/main', oid: oid('a') },
      { ref: 'refs/tags/v2', oid: oid('b'), peeled: oid('c') },
      { ref: 'refs/heads/sha256', oid: 'd'.repeat(64) },
    ]);
  });

  it('is an empty list when no ref starts with a prefix, and ignores attributes it does not know', () => {
    expect(parseLsRefsResponse(Buffer.from('0000'))).toEqual([]);
    expect(parseLsRefsResponse(answer(`${oid('a')} refs/heads/x later-attribute:1\n`))).toEqual([
      { ref: 'refs/heads/x', oid: oid('a') },
    ]);
  });

  it.each([
    ['an ERR line', answer('ERR upload-pack: not a v2 command\n')],
    ['a v1 advertisement', answer('# service=git-upload-pack\n')],
    ['a v0 first line with capabilities', answer(`${oid('a')} HEAD\0multi_ack thin-pack\n`)],
    ['an unborn HEAD it did not ask for', answer('unborn HEAD symref-target:refs/heads/main\n')],
    ['a bad peeled id', answer(`${oid('a')} refs/tags/v1 peeled:xyz\n`)],
    ['a cut before the flush', pkt(`${oid('a')} refs/heads/main\n`)],
    ['bytes after the flush', Buffer.concat([answer(`${oid('a')} refs/heads/main\n`), Buffer.from('0000')])],
    ['a line longer than the body', Buffer.from('0fffab')],
    ['nothing', Buffer.alloc(0)],
    ['no length', Buffer.from('zzzz')],
  ])('is not understood with %s (the caller asks the v1 way)', (_, body) => {
    expect(parseLsRefsResponse(body)).toBeUndefined();
  });
});

describe('an ls-refs request', () => {
  it('asks for symrefs and peeled tags under each prefix', () => {
    expect(commandBody('ls-refs', lsRefsArgs(['HEAD', 'refs/heads/'])).toString('latin1')).toBe(
      '0014command=ls-refs\n0001000csymrefs\n0009peel\n0014ref-prefix HEAD\n001bref-prefix refs/heads/\n0000',
    );
  });
});
