import { describe, expect, it } from 'vitest';
import { missingFinalizerRule } from '../../../../lib/audit/rules/missing-finalizer.js';
import { auditApp } from '../../../../lib/audit/run-audit.js';
import { application, input } from '../fixture.js';

function check(finalizers: unknown) {
  return auditApp(input({ application: application({ metadata: { finalizers } }) }), [missingFinalizerRule])
    .findings;
}

describe('missing-finalizer', () => {
  it.each([
    ['resources-finalizer.argocd.argoproj.io'],
    ['resources-finalizer.argocd.argoproj.io/background'],
    ['resources-finalizer.argocd.argoproj.io/foreground'],
  ])('stays quiet with %s', (finalizer) => {
    expect(check(['other.example.com/keep', finalizer])).toEqual([]);
  });

  it.each([
    ['no finalizers', undefined],
    ['an empty list', []],
    ['a misspelled finalizer', ['resources-finalizer.argoproj.io']],
    ['a finalizers field that is not a list', 'resources-finalizer.argocd.argoproj.io'],
  ])('fires with %s', (_name, finalizers) => {
    expect(check(finalizers).map((f) => f.rule)).toEqual(['missing-finalizer']);
  });
});
