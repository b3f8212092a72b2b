import { describe, expect, it } from 'vitest';
import { looksRemote, parseKustomization, resolveResourceEntry } from '../../../lib/git/kustomization.js';

describe('resolveResourceEntry', () => {
  it.each([
    [
      'a file beside the kustomization',
      'apps/web',
      'deploy.yaml',
      { kind: 'local', path: 'apps/web/deploy.yaml' },
    ],
    [
      'a sibling directory through ../',
      'apps/web/overlays/prod',
      '../../base',
      { kind: 'local', path: 'apps/web/base' },
    ],
    ['a climb that stays at the root', 'apps/web', '../../shared', { kind: 'local', path: 'shared' }],
    ['a climb past the root', 'apps/web', '../../../etc', { kind: 'outside' }],
    ['an absolute path', 'apps', '/etc/passwd', { kind: 'outside' }],
    ['an https URL', 'apps', 'https://github.com/org/base//dir?ref=v1', { kind: 'remote' }],
    ['a go-getter git:: URL', 'apps', 'git::https://example.com/base.git', { kind: 'remote' }],
    ['an scp-style SSH URL', 'apps', 'git@github.com:org/base.git//dir', { kind: 'remote' }],
    ['the current directory at the root', '', '.', { kind: 'local', path: '' }],
  ])('places %s', (_name, dir, entry, expected) => {
    expect(resolveResourceEntry(dir, entry)).toEqual(expected);
  });
});

describe('looksRemote', () => {
  it.each([
    ['a host-style path with a ref', 'github.com/org/repo//base?ref=v1', true],
    ['a host-style path', 'gitlab.example.com/group/repo', true],
    ['a relative directory', '../base', false],
    ['a file name with a dot', 'deploy.yaml', false],
  ])('judges %s', (_name, entry, expected) => {
    expect(looksRemote(entry)).toBe(expected);
  });
});

describe('parseKustomization', () => {
  it('lists resources, bases and components in that order', () => {
    const parsed = parseKustomization(
      'resources: [a.yaml, ../base]\nbases: [old]\ncomponents: [c]\npatches: [p.yaml]\n',
    );
    expect(parsed.entries).toEqual(['a.yaml', '../base', 'old', 'c']);
    expect(parsed.errors).toEqual([]);
  });

  it('notes helmCharts inflation, which is not rendered', () => {
    expect(parseKustomization('helmCharts:\n- name: redis\n').inflatesHelmCharts).toBe(true);
  });

  it('reports a resources field that is not a list', () => {
    expect(parseKustomization('resources: a.yaml\n').errors).toEqual(['resources is not a list']);
  });

  it('reports an empty kustomization', () => {
    expect(parseKustomization('').errors).toContain('empty kustomization');
  });
});
