import { describe, expect, it } from 'vitest';
import {
  defaultAssumableRolePattern,
  firstOutside,
  iamPatternMatches,
  parseRolePatterns,
} from '../../../lib/fleet/aws-scopes.js';

describe('iamPatternMatches, as IAM matches a Resource', () => {
  it.each([
    [
      'a * spans any run of characters',
      'arn:aws:iam::1:role/eso-*',
      'arn:aws:iam::1:role/eso-shop/reader',
      true,
    ],
    ['a ? is exactly one character', 'arn:aws:iam::1:role/eso-?', 'arn:aws:iam::1:role/eso-ab', false],
    ['matching is case-sensitive', 'arn:aws:iam::1:role/eso-*', 'arn:aws:iam::1:role/ESO-shop', false],
    [
      'regexp characters in the pattern are literal',
      'arn:aws:iam::1:role/a.b',
      'arn:aws:iam::1:role/axb',
      false,
    ],
    [
      'an account wildcard admits another account',
      'arn:aws:iam::*:role/eso-*',
      'arn:aws:iam::222222222222:role/eso-x',
      true,
    ],
    ['the whole ARN must match', 'arn:aws:iam::1:role/eso', 'arn:aws:iam::1:role/eso-x', false],
  ])('%s', (_name, pattern, arn, expected) => {
    expect(iamPatternMatches(pattern, arn)).toBe(expected);
  });
});

describe('the default and the setting', () => {
  it("builds serverless.yml's default pattern for a stage and account", () => {
    expect(defaultAssumableRolePattern({ account: '111111111111', stage: 'prod' })).toBe(
      'arn:aws:iam::111111111111:role/gitops-sync-prod-access-*',
    );
  });

  it('reads a comma-separated setting, dropping blanks', () => {
    expect(parseRolePatterns(' arn:a:iam::1:role/x-* , ,arn:a:iam::2:role/y ')).toEqual([
      'arn:a:iam::1:role/x-*',
      'arn:a:iam::2:role/y',
    ]);
  });

  it('names the first role of a chain that no pattern allows', () => {
    const patterns = ['arn:aws:iam::1:role/gitops-sync-prod-access-*'];
    expect(
      firstOutside(['arn:aws:iam::1:role/gitops-sync-prod-access-a', 'arn:aws:iam::1:role/team'], patterns),
    ).toBe('arn:aws:iam::1:role/team');
    expect(firstOutside(['arn:aws:iam::1:role/gitops-sync-prod-access-a'], patterns)).toBeUndefined();
  });
});
