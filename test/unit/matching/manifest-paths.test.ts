import { describe, expect, it } from 'vitest';
import { compileGlob, isGlob } from '../../../lib/matching/glob.js';
import {
  cleanPath,
  pathCoversFile,
  pathsCoverChanges,
  refreshPaths,
  rulesCoverChanges,
  rulesCoverFile,
} from '../../../lib/matching/manifest-paths.js';
import { files, unknownFiles } from './fleet-objects.js';

describe('refreshPaths', () => {
  it.each([
    ['no annotation means no filter', undefined, 'apps/web', []],
    ['an empty annotation means no filter', '', 'apps/web', []],
    ['separators and whitespace only mean no filter', ' ; ; ', 'apps/web', []],
    ['. is the source path', '.', 'apps/web', ['apps/web']],
    [
      'a relative item resolves against the source path',
      'overlays/prod',
      'apps/web',
      ['apps/web/overlays/prod'],
    ],
    ['../ resolves to a sibling of the source path', '../shared', 'apps/web', ['apps/shared']],
    [
      'items are split on ; and trimmed',
      ' . ;../shared ;  /charts ',
      'apps/web',
      ['apps/web', 'apps/shared', 'charts'],
    ],
    ['an absolute item is from the repo root', '/envs/prod/app.yaml', 'apps/web', ['envs/prod/app.yaml']],
    [
      'differs from Argo CD: an absolute item is cleaned (#25366)',
      '/a/../b/file.yaml',
      'apps/web',
      ['b/file.yaml'],
    ],
    ['/ is the whole repository', '/', 'apps/web', ['']],
    ['. with an empty source path is the whole repository', '.', '', ['']],
    ['climbing above the root stays at the root', '../../../x', 'apps/web', ['x']],
    ['a leading ./ on the source path is ignored', '.', './apps/web/', ['apps/web']],
    ['a glob item resolves against the source path', '*.yaml', 'apps/a', ['apps/a/*.yaml']],
  ])('%s', (_name, annotation, sourcePath, expected) => {
    expect(refreshPaths(annotation, sourcePath)).toEqual(expected);
  });
});

describe('pathCoversFile', () => {
  it.each([
    ['an item equal to the file', 'apps/web/deploy.yaml', 'apps/web/deploy.yaml', true],
    ['a directory above the file', 'apps/web', 'apps/web/base/deploy.yaml', true],
    ['a directory boundary is respected', 'apps/web', 'apps/webhooks/x.yaml', false],
    ['a sibling directory does not cover', 'apps/web', 'apps/api/x.yaml', false],
    ['the root covers everything', '', 'anything/at/all.yaml', true],
    ['a file listed with a leading / still matches', 'apps/web', '/apps/web/x.yaml', true],
    ['a file listed with a leading ./ still matches', 'apps/web', './apps/web/x.yaml', true],
    ['matching is case-sensitive', 'apps/web', 'Apps/Web/x.yaml', false],
    ['* stays within one segment', 'apps/a/*.yaml', 'apps/a/x.yaml', true],
    ['* does not cross a segment', 'apps/a/*.yaml', 'apps/a/sub/x.yaml', false],
    ['? matches one character', 'apps/v?/x.yaml', 'apps/v1/x.yaml', true],
    ['? does not match a slash', 'apps/a?b', 'apps/a/b', false],
    ['a character class', 'envs/[ps]*', 'envs/prod/app.yaml', true],
    ['a negated character class', 'envs/[!p]*/app.yaml', 'envs/prod/app.yaml', false],
    ['differs from Argo CD: ** crosses segments', 'charts/**/values.yaml', 'charts/a/b/values.yaml', true],
    ['** also matches zero segments', 'charts/**/values.yaml', 'charts/values.yaml', true],
    ['** at the end covers everything below', 'charts/**', 'charts/a/b/c.yaml', true],
    ['a ** item still needs its prefix', 'charts/**', 'apps/a.yaml', false],
    [
      'differs from Argo CD: a glob naming a directory covers files below it',
      'apps/*/base',
      'apps/x/base/k.yaml',
      true,
    ],
    ['a malformed glob never matches as a glob', 'apps/[web', 'apps/w/x.yaml', false],
    ['a malformed glob still matches as an equal path', 'apps/[web', 'apps/[web', true],
    ['regexp characters in an item are literal', 'apps/a.b', 'apps/axb/x.yaml', false],
    ['an escaped star is literal', 'apps/\\*', 'apps/x', false],
  ])('%s', (_name, item, file, expected) => {
    expect(pathCoversFile(item, file)).toBe(expected);
  });
});

describe('pathsCoverChanges', () => {
  it.each([
    ['no filter refreshes on any change', [], files('README.md'), 'refreshed'],
    ['no filter refreshes even an empty commit (Argo CD refreshes on every push)', [], files(), 'refreshed'],
    ['no filter refreshes with unknown files', [], unknownFiles, 'refreshed'],
    ['a covered file refreshes', ['apps/web'], files('docs/x.md', 'apps/web/d.yaml'), 'refreshed'],
    ['no covered file is a paths miss', ['apps/web'], files('apps/api/d.yaml'), 'paths-miss'],
    [
      'differs from Argo CD: a known-empty list is a paths miss for a filtered source',
      ['apps/web'],
      files(),
      'paths-miss',
    ],
    ['unknown files fail open for a filtered source', ['apps/web'], unknownFiles, 'refreshed-unknown-files'],
    ['an empty file name (a provider quirk) covers nothing', ['apps/web'], files(''), 'paths-miss'],
    [
      'any of several items may cover',
      ['apps/web', 'apps/shared'],
      files('apps/shared/cm.yaml'),
      'refreshed',
    ],
  ] as const)('%s', (_name, paths, changed, expected) => {
    expect(pathsCoverChanges(paths, changed)).toBe(expected);
  });
});

describe('ApplicationSet generator paths', () => {
  const dirs = [{ path: 'apps/*' }, { path: 'apps/legacy', exclude: true }];

  it.each([
    ['a directories path apps/* covers anything under apps/x', dirs, 'apps/x/deep/file.yaml', true],
    ['an excluded directory does not count', dirs, 'apps/legacy/deploy.yaml', false],
    ['a path outside every include does not count', dirs, 'docs/readme.md', false],
    [
      'files paths use ** across segments',
      [{ path: 'clusters/**/config.json' }],
      'clusters/eu/a/config.json',
      true,
    ],
    [
      'files paths keep * within a segment',
      [{ path: 'clusters/*/config.json' }],
      'clusters/eu/a/config.json',
      false,
    ],
    [
      'an excluded file does not count',
      [{ path: 'clusters/**/config.json' }, { path: 'clusters/old/config.json', exclude: true }],
      'clusters/old/config.json',
      false,
    ],
  ])('%s', (_name, rules, file, expected) => {
    expect(rulesCoverFile(rules, file)).toBe(expected);
  });

  it.each([
    ['no paths at all refreshes on any push', [], files(), 'refreshed'],
    ['unknown files fail open', dirs, unknownFiles, 'refreshed-unknown-files'],
    ['only excluded changes are a paths miss', dirs, files('apps/legacy/a.yaml'), 'paths-miss'],
    ['an included change refreshes', dirs, files('apps/legacy/a.yaml', 'apps/new/a.yaml'), 'refreshed'],
  ] as const)('%s', (_name, rules, changed, expected) => {
    expect(rulesCoverChanges(rules, changed)).toBe(expected);
  });
});

describe('cleanPath and globs', () => {
  it.each([
    ['a/./b//c/', 'a/b/c'],
    ['/a/../../b', 'b'],
    ['./', ''],
  ])('cleans %s to %s', (input, expected) => {
    expect(cleanPath(input)).toBe(expected);
  });

  it('tells globs from plain paths and rejects malformed ones', () => {
    expect(isGlob('apps/web')).toBe(false);
    expect(isGlob('apps/*')).toBe(true);
    expect(compileGlob('apps/{a,b')).toBeUndefined();
    expect(compileGlob('apps/[z-a]')).toBeUndefined();
    expect(compileGlob('apps/{web,api}/*')?.test('apps/api/x.yaml')).toBe(true);
  });
});
