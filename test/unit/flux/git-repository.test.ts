import { describe, expect, it } from 'vitest';
import { fluxRefMatches, parseGitRepository } from '../../../lib/flux/git-repository.js';
import type { PushedRef } from '../../../lib/matching/revision.js';
import { gitRepository, REPO } from '../matching/fleet-objects.js';

const branch = (refName: string): PushedRef => ({ refType: 'branch', refName, touchedDefaultBranch: false });
const tag = (refName: string): PushedRef => ({ refType: 'tag', refName, touchedDefaultBranch: false });

describe('parseGitRepository', () => {
  it('reads url and the ref fields that are set', () => {
    expect(parseGitRepository(gitRepository('infra', `${REPO}.git`, { branch: 'main', tag: '' }))).toEqual({
      ok: true,
      value: {
        namespace: 'flux-system',
        name: 'infra',
        url: `${REPO}.git`,
        repoKey: 'github.com/acme/gitops',
        ref: { branch: 'main' },
      },
    });
  });

  it.each([
    ['no url', gitRepository('a', ''), 'spec.url is missing'],
    ['a url that is not Git', gitRepository('a', 'oci://ghcr.io/x'), 'spec.url is not a Git repository URL'],
    [
      'a ref that is not an object',
      gitRepository('a', REPO, 'main' as unknown as Record<string, unknown>),
      'spec.ref is not an object',
    ],
    [
      'a ref field that is not a string',
      gitRepository('a', REPO, { semver: 1 }),
      'spec.ref.semver is not a string',
    ],
  ])('rejects %s with a reason', (_name, raw, reason) => {
    expect(parseGitRepository(raw)).toEqual({ ok: false, reason });
  });
});

describe('fluxRefMatches', () => {
  it.each([
    ['a branch ref follows a push to that branch', { branch: 'main' }, branch('main'), true],
    ['a branch ref ignores another branch', { branch: 'main' }, branch('dev'), false],
    ['a branch ref ignores a tag of the same name', { branch: 'main' }, tag('main'), false],
    ["no ref follows master, source-controller's default", {}, branch('master'), true],
    ['no ref ignores main', {}, branch('main'), false],
    ['a tag ref follows a push of that tag', { tag: 'v1.0.0' }, tag('v1.0.0'), true],
    ['a tag ref ignores a branch of the same name', { tag: 'v1.0.0' }, branch('v1.0.0'), false],
    ['a semver ref follows a satisfying tag', { semver: '>=1.0.0' }, tag('v1.4.0'), true],
    ['a semver ref ignores a tag outside the range', { semver: '^1.0.0' }, tag('v2.0.0'), false],
    ['a semver ref ignores branches', { semver: '>=1.0.0' }, branch('1.5.0'), false],
    [
      'a semver ref ignores prereleases unless it names one',
      { semver: '>=1.0.0' },
      tag('v1.5.0-rc.1'),
      false,
    ],
    [
      'a semver ref needs three version parts, as Flux parses tags',
      { semver: '>=1.0.0' },
      tag('v1.5'),
      false,
    ],
    ['a semver ref wins over a branch', { semver: '>=1.0.0', branch: 'main' }, branch('main'), false],
    ['a name ref follows its branch', { name: 'refs/heads/main' }, branch('main'), true],
    ['a name ref follows its tag', { name: 'refs/tags/v1' }, tag('v1'), true],
    ['a name ref ignores the other ref type', { name: 'refs/tags/v1' }, branch('v1'), false],
    [
      'a pull-request name ref never follows a push',
      { name: 'refs/pull/1/head' },
      branch('pull/1/head'),
      false,
    ],
    ['a name ref wins over tag', { name: 'refs/heads/dev', tag: 'v1' }, tag('v1'), false],
    ['a commit ref never moves', { commit: 'abc1234' }, branch('main'), false],
    ['a commit ref wins over a branch', { branch: 'main', commit: 'abc1234' }, branch('main'), false],
  ])('%s', (_name, ref, push, expected) => {
    expect(fluxRefMatches(ref, push)).toBe(expected);
  });
});
