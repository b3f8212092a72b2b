import { describe, expect, it } from 'vitest';
import { KubeStatusError } from '../../../infra/simulator/kube-status.js';
import { applyJsonPatch, applyMergePatch } from '../../../infra/simulator/patches.js';
import { parseFieldSelector, parseLabelSelector } from '../../../infra/simulator/selectors.js';

const doc = { metadata: { name: 'web', annotations: { a: '1', 'x/y': '2' } }, spec: { list: [1, 2, 3] } };

describe('applyMergePatch (RFC 7386)', () => {
  it.each([
    ['merges nested objects', { metadata: { annotations: { b: '3' } } }, { a: '1', 'x/y': '2', b: '3' }],
    ['deletes a key given null', { metadata: { annotations: { a: null } } }, { 'x/y': '2' }],
    ['replaces a whole object given a scalar', { metadata: { annotations: 'none' } }, 'none'],
  ])('%s', (_name, patch, annotations) => {
    expect((applyMergePatch(doc, patch) as typeof doc).metadata.annotations).toEqual(annotations);
  });

  it('replaces arrays instead of merging them', () => {
    expect((applyMergePatch(doc, { spec: { list: [9] } }) as typeof doc).spec.list).toEqual([9]);
  });
});

describe('applyJsonPatch (RFC 6902)', () => {
  it.each([
    [
      'adds a key whose name holds a slash (~1)',
      [{ op: 'add', path: '/metadata/annotations/p~1q', value: 'v' }],
      '/metadata/annotations',
      { a: '1', 'x/y': '2', 'p/q': 'v' },
    ],
    [
      'replaces a value',
      [{ op: 'replace', path: '/metadata/annotations/a', value: '9' }],
      '/metadata/annotations',
      { a: '9', 'x/y': '2' },
    ],
    [
      'removes a value',
      [{ op: 'remove', path: '/metadata/annotations/x~1y' }],
      '/metadata/annotations',
      { a: '1' },
    ],
    [
      'appends to an array with -',
      [{ op: 'add', path: '/spec/list/-', value: 4 }],
      '/spec/list',
      [1, 2, 3, 4],
    ],
    [
      'inserts into an array at an index',
      [{ op: 'add', path: '/spec/list/0', value: 0 }],
      '/spec/list',
      [0, 1, 2, 3],
    ],
    [
      'moves a value',
      [{ op: 'move', from: '/metadata/annotations/a', path: '/metadata/annotations/b' }],
      '/metadata/annotations',
      { 'x/y': '2', b: '1' },
    ],
    [
      'passes a test of an equal object whatever its key order',
      [{ op: 'test', path: '/metadata/annotations', value: { 'x/y': '2', a: '1' } }],
      '/metadata/annotations',
      { a: '1', 'x/y': '2' },
    ],
  ])('%s', (_name, operations, path, expected) => {
    const result = applyJsonPatch(doc, operations) as Record<string, Record<string, unknown>>;
    const [, first, second] = path.split('/');
    expect(result[first as string]?.[second as string]).toEqual(expected);
  });

  it.each([
    ['a failed test', [{ op: 'test', path: '/metadata/name', value: 'api' }], 422],
    ['replacing a missing path', [{ op: 'replace', path: '/spec/missing', value: 1 }], 422],
    ['removing a missing path', [{ op: 'remove', path: '/metadata/labels/x' }], 422],
    ['an unknown op', [{ op: 'merge', path: '/spec', value: {} }], 422],
    ['an operation without a path', [{ op: 'add', value: 1 }], 400],
    ['a body that is not a list', { op: 'add' }, 400],
  ])('rejects %s with its status and changes nothing', (_name, operations, status) => {
    const before = structuredClone(doc);
    let thrown: unknown;
    try {
      applyJsonPatch(doc, operations);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(KubeStatusError);
    expect((thrown as KubeStatusError).status.code).toBe(status);
    expect(doc).toEqual(before);
  });
});

describe('label and field selectors', () => {
  const labels = { app: 'web', tier: 'front', team: 'core' };
  it.each([
    ['app=web', true],
    ['app==web,tier=front', true],
    ['app!=web', false],
    ['tier in (front, back)', true],
    ['tier notin (front)', false],
    ['team', true],
    ['!team', false],
    ['missing notin (x)', true],
    ['app=api', false],
    ['', true],
  ])('%s matches the labels: %s', (selector, expected) => {
    expect(parseLabelSelector(selector)(labels)).toBe(expected);
  });

  it('rejects a selector it cannot parse with 400', () => {
    expect(() => parseLabelSelector('app in web')).toThrow(KubeStatusError);
  });

  it('supports metadata.name and metadata.namespace field selectors only', () => {
    const object = { metadata: { name: 'web', namespace: 'argocd' } };
    expect(parseFieldSelector('metadata.name=web,metadata.namespace!=other')(object)).toBe(true);
    expect(parseFieldSelector('metadata.name=api')(object)).toBe(false);
    expect(() => parseFieldSelector('spec.project=default')).toThrow(
      'field label not supported: spec.project',
    );
  });
});
