import { describe, expect, it } from 'vitest';
import { globMatch, replicasCoverage } from '../../../lib/audit/ignore-differences.js';

const web = { group: 'apps', kind: 'Deployment', name: 'web', namespace: 'shop' };
const covered = (entry: unknown) => replicasCoverage([{ source: 'application', entry }], web);

describe('globMatch', () => {
  it.each([
    ['* matches anything', '*', 'apps', true],
    ['* matches the empty core group', '*', '', true],
    ['an empty pattern matches only the core group', '', 'apps', false],
    ['? matches one character', 'app?', 'apps', true],
    ['braces give alternatives', '{apps,extensions}', 'extensions', true],
    ['a character class matches one of its characters', 'Deploymen[st]', 'Deployment', true],
    ['a negated class excludes its characters', 'Deploymen[!t]', 'Deployment', false],
    ['dots are literal', 'apps.k8s.io', 'appsxk8sxio', false],
    ['the whole value must match', 'apps', 'apps.example.com', false],
    ['an unclosed brace compares literally', '{apps', '{apps', true],
    // Backtracking would try ~C(80,16) splits here; RE2 answers at once.
    ['many stars against a long near-miss answer false', `${'*a'.repeat(16)}b`, 'a'.repeat(80), false],
  ])('%s', (_name, pattern, value, expected) => {
    expect(globMatch(pattern, value)).toBe(expected);
  });
});

describe('replicasCoverage', () => {
  it.each([
    [
      'jsonPointers /spec/replicas',
      { group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] },
      'jsonPointers',
    ],
    [
      'a jsonPointer on all of /spec',
      { group: 'apps', kind: 'Deployment', jsonPointers: ['/spec'] },
      'jsonPointers',
    ],
    [
      'jq .spec.replicas with spaces',
      { group: 'apps', kind: 'Deployment', jqPathExpressions: [' .spec.replicas '] },
      'jqPathExpressions',
    ],
    [
      'the HPA controller among managedFieldsManagers',
      { group: 'apps', kind: 'Deployment', managedFieldsManagers: ['x', 'kube-controller-manager'] },
      'managedFieldsManagers',
    ],
    [
      'the exact name and namespace',
      { group: 'apps', kind: 'Deployment', name: 'web', namespace: 'shop', jsonPointers: ['/spec/replicas'] },
      'jsonPointers',
    ],
    ['glob group and kind', { group: '*', kind: '*', jsonPointers: ['/spec/replicas'] }, 'jsonPointers'],
  ])('covers replicas with %s', (_name, entry, field) => {
    expect(covered(entry)?.field).toBe(field);
  });

  it.each([
    ['no group (the core group)', { kind: 'Deployment', jsonPointers: ['/spec/replicas'] }],
    ['no kind', { group: 'apps', jsonPointers: ['/spec/replicas'] }],
    ['another kind', { group: 'apps', kind: 'StatefulSet', jsonPointers: ['/spec/replicas'] }],
    ['a different manager', { group: 'apps', kind: 'Deployment', managedFieldsManagers: ['keda-operator'] }],
    [
      'a nested pointer below replicas',
      { group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas/x'] },
    ],
    ['an entry that is not an object', 'apps/Deployment'],
  ])('does not cover replicas with %s', (_name, entry) => {
    expect(covered(entry)).toBeUndefined();
  });
});
