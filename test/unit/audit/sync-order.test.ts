import { describe, expect, it } from 'vitest';
import { syncPosition, syncWave } from '../../../lib/audit/sync-order.js';

const at = (annotations: Record<string, string>) => ({ annotations });

describe('syncWave', () => {
  it.each([
    ['no annotation is wave 0', {}, 0],
    ['a negative wave', { 'argocd.argoproj.io/sync-wave': '-2' }, -2],
    ['a wave with a plus sign', { 'argocd.argoproj.io/sync-wave': '+3' }, 3],
    [
      'an unparsable wave falls back to the Helm hook weight',
      { 'argocd.argoproj.io/sync-wave': '1.5', 'helm.sh/hook-weight': '4' },
      4,
    ],
    ['a wave with spaces is not an integer for strconv.Atoi', { 'argocd.argoproj.io/sync-wave': ' 1' }, 0],
    [
      'the sync-wave wins over the hook weight',
      { 'argocd.argoproj.io/sync-wave': '1', 'helm.sh/hook-weight': '9' },
      1,
    ],
  ])('%s', (_name, annotations, wave) => {
    expect(syncWave(at(annotations))).toBe(wave);
  });
});

describe('syncPosition', () => {
  it.each([
    ['a plain resource runs in Sync', {}, 'Sync'],
    ['a PreSync hook', { 'argocd.argoproj.io/hook': 'PreSync' }, 'PreSync'],
    [
      'a hook in several phases runs first in the earliest',
      { 'argocd.argoproj.io/hook': 'PostSync, PreSync' },
      'PreSync',
    ],
    ['a Helm pre-upgrade hook is PreSync', { 'helm.sh/hook': 'pre-install,pre-upgrade' }, 'PreSync'],
    [
      'the Argo CD hook wins over the Helm hook',
      { 'argocd.argoproj.io/hook': 'PostSync', 'helm.sh/hook': 'pre-install' },
      'PostSync',
    ],
    ['a Skip hook is never applied', { 'argocd.argoproj.io/hook': 'Skip' }, undefined],
  ])('%s', (_name, annotations, phase) => {
    expect(syncPosition(at(annotations))?.phase).toBe(phase);
  });
});
