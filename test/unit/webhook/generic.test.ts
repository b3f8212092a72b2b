import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../lib/errors.js';
import { normalizeGenericPush } from '../../../lib/webhook/generic.js';
import { ZERO_SHA } from '../../../lib/webhook/push-event.js';
import { meta } from './support.js';

const after = 'c'.repeat(40);
const event = (payload: unknown) => {
  const push = normalizeGenericPush(payload, meta);
  return push.kind === 'push' ? push.event : push;
};

describe('normalizeGenericPush', () => {
  it('takes the documented body as it is: repository, full ref, range and files', () => {
    expect(
      event({
        repo: 'https://git.example.com/team/deploy.git',
        ref: 'refs/heads/main',
        before: 'b'.repeat(40),
        after,
        files: ['apps/web/values.yaml', '/apps/api/values.yaml', 'apps/web/values.yaml'],
      }),
    ).toMatchObject({
      provider: 'generic',
      repo: {
        fullName: 'team/deploy',
        webUrl: 'https://git.example.com/team/deploy',
        urls: ['https://git.example.com/team/deploy'],
      },
      ref: 'refs/heads/main',
      refType: 'branch',
      before: 'b'.repeat(40),
      after,
      created: false,
      touchedDefaultBranch: true,
      changedFiles: { known: true, files: ['apps/web/values.yaml', 'apps/api/values.yaml'] },
    });
  });

  it('reads a bare ref as a branch, no before as an unknown base, no files as unknown', () => {
    expect(event({ repo: 'git@git.example.com:team/deploy.git', ref: 'release', after })).toMatchObject({
      ref: 'refs/heads/release',
      before: ZERO_SHA,
      created: false,
      repo: {
        webUrl: 'https://git.example.com/team/deploy',
        urls: ['https://git.example.com/team/deploy', 'git@git.example.com:team/deploy.git'],
      },
      changedFiles: { known: false, reason: 'no-commit-list' },
    });
  });

  it('never keeps a token from the repository URL', () => {
    const pushed = event({ repo: 'https://ci:glpat-secret@git.example.com/team/deploy', ref: 'main', after });
    expect(JSON.stringify(pushed)).not.toContain('glpat-secret');
    const ssh = event({ repo: 'ssh://ci:hunter2@git.example.com/team/deploy', ref: 'main', after });
    expect(JSON.stringify(ssh)).not.toContain('hunter2');
  });

  it('uses defaultBranch, author and message when given', () => {
    expect(
      event({
        repo: 'https://h/o/r',
        ref: 'refs/heads/dev',
        after,
        defaultBranch: 'main',
        author: 'ci-bot',
        message: 'deploy\nmore',
      }),
    ).toMatchObject({ touchedDefaultBranch: false, author: { name: 'ci-bot' }, commitTitle: 'deploy' });
  });

  it('keeps an empty file list known and empty (nothing path-filtered is refreshed)', () => {
    expect(event({ repo: 'https://h/o/r', ref: 'main', after, files: [] })).toMatchObject({
      changedFiles: { known: true, files: [] },
    });
  });

  it('ignores a ref that is neither a branch nor a tag', () => {
    expect(event({ repo: 'https://h/o/r', ref: 'refs/notes/x', after })).toEqual({
      kind: 'ignored',
      reason: 'ref "refs/notes/x" is neither a branch nor a tag',
    });
  });

  it.each([
    ['a body that is no object', [], 'must be a JSON object'],
    ['no repo', { ref: 'main', after }, '"repo"'],
    [
      'a repo that is no Git URL',
      { repo: 'oci://ghcr.io/x/y', ref: 'main', after },
      '"repo" must be a Git repository URL',
    ],
    ['no ref', { repo: 'https://h/o/r', after }, '"ref"'],
    ['no after', { repo: 'https://h/o/r', ref: 'main' }, '"after"'],
    [
      'an after that is no SHA',
      { repo: 'https://h/o/r', ref: 'main', after: 'HEAD' },
      '"after" must be a commit SHA',
    ],
    ['a before that is no SHA', { repo: 'https://h/o/r', ref: 'main', after, before: 3 }, '"before"'],
    [
      'files that are no list of paths',
      { repo: 'https://h/o/r', ref: 'main', after, files: 'a.yaml' },
      '"files"',
    ],
  ])('refuses %s with a 400 naming the field', (_name, body, message) => {
    expect(() => normalizeGenericPush(body, meta)).toThrow(BadRequestError);
    expect(() => normalizeGenericPush(body, meta)).toThrow(message);
  });
});
