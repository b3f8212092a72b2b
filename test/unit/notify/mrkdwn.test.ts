import { describe, expect, it } from 'vitest';
import {
  code,
  escapeMrkdwn,
  link,
  oneLine,
  redactCredentials,
  safeUrl,
  truncate,
} from '../../../lib/notify/mrkdwn.js';

describe('escapeMrkdwn', () => {
  it.each([
    ['an ampersand becomes &amp;', 'a & b', 'a &amp; b'],
    [
      'angle brackets become entities, so no mention or link can be made',
      '<!channel> <@U1>',
      '&lt;!channel&gt; &lt;@U1&gt;',
    ],
    ['an entity already written is escaped again, shown as typed', '&lt;', '&amp;lt;'],
    ['other mrkdwn characters stay as they are', '*bold* _it_ ~s~', '*bold* _it_ ~s~'],
  ])('%s', (_name, input, output) => {
    expect(escapeMrkdwn(input)).toBe(output);
  });
});

describe('redactCredentials', () => {
  it.each([
    [
      'user info in a URL is masked',
      'clone https://bot:hunter2@git.example/x',
      'clone https://***@git.example/x',
    ],
    ['a token alone as user info is masked', 'https://ghp_zzz@github.com/o/r', 'https://***@github.com/o/r'],
    ['a Slack token is masked', 'token xoxb-123-456-abcdef', 'token xox*-***'],
    ['a GitHub token is masked', 'ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123', 'gh*_***'],
    ['a GitLab token is masked', 'glpat-abcdefghij12345', 'glpat-***'],
    ['a bearer header is masked', 'Authorization: Bearer abc.def.ghi-jkl', 'Authorization: Bearer ***'],
    ['plain text is left alone', 'sync failed: exit status 1', 'sync failed: exit status 1'],
  ])('%s', (_name, input, output) => {
    expect(redactCredentials(input)).toBe(output);
  });
});

describe('link', () => {
  it('links an https URL with its label', () => {
    expect(link('https://github.com/o/r', 'o/r')).toBe('<https://github.com/o/r|o/r>');
  });

  it.each([
    ['no URL', undefined],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['something that is not a URL', 'not a url'],
  ])('shows the label alone for %s', (_name, url) => {
    expect(link(url, 'label')).toBe('label');
  });

  it('drops user info and encodes characters that would end the link', () => {
    expect(safeUrl('https://u:p@h.example/a|b?x=1&y=<2>')).toBe('https://h.example/a%7Cb?x=1&amp;y=%3C2%3E');
  });
});

describe('truncate', () => {
  it.each([
    ['short text is kept', 'abc', 5, 'abc'],
    ['long text is cut with an ellipsis to the limit', 'abcdefgh', 5, 'abcd…'],
    ['emoji are not split in half', '😀😀😀😀', 3, '😀😀…'],
  ])('%s', (_name, text, max, out) => {
    expect(truncate(text, max)).toBe(out);
  });
});

describe('oneLine and code', () => {
  it('takes the first non-empty line of a commit message', () => {
    expect(oneLine('\n  Fix   the\tthing  \n\nbody')).toBe('Fix the thing');
  });

  it('keeps backticks from closing inline code early', () => {
    expect(code('a`b')).toBe('`aˋb`');
  });
});
