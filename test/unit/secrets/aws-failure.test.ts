import { describe, expect, it } from 'vitest';
import { failureOutcome, sanitizeAwsMessage, toAwsFailure } from '../../../lib/secrets/aws-failure.js';
import { SecretsManagerError } from '../../../lib/secrets/secrets-manager-api.js';
import { decodingProblem, nullByteProblem } from '../../../lib/secrets/value-checks.js';

describe('failureOutcome maps AWS errors as ESO sees them', () => {
  it.each([
    [
      'ResourceNotFoundException is a missing secret ESO may skip',
      'ResourceNotFoundException',
      "Secrets Manager can't find the specified secret.",
      'missing-secret',
      true,
    ],
    [
      'InvalidRequestException "marked for deletion" is missing but ESO does not skip it',
      'InvalidRequestException',
      "You can't perform this operation on the secret because it was marked for deletion.",
      'missing-secret',
      false,
    ],
    [
      'InvalidParameterException "marked for deletion" is what ESO skips',
      'InvalidParameterException',
      'it was marked for deletion',
      'missing-secret',
      true,
    ],
    [
      'AccessDeniedException is access-denied',
      'AccessDeniedException',
      'User: x is not authorized',
      'access-denied',
      false,
    ],
    [
      'a KMS denial is access-denied',
      'AccessDeniedException',
      'Access to KMS is not allowed',
      'access-denied',
      false,
    ],
    [
      'DecryptionFailure is access-denied',
      'DecryptionFailure',
      "Secrets Manager can't decrypt the protected secret text",
      'access-denied',
      false,
    ],
    ['anything else is an error', 'ThrottlingException', 'Rate exceeded', 'error', false],
  ])('%s', (_name, code, message, outcome, noSecretErr) => {
    expect(failureOutcome({ code, message })).toMatchObject({ outcome, noSecretErr });
  });

  it('names a KMS denial as such', () => {
    expect(
      failureOutcome({ code: 'AccessDeniedException', message: 'Access to KMS is not allowed' }).message,
    ).toBe('KMS decrypt denied (AccessDeniedException): Access to KMS is not allowed');
  });
});

describe('sanitizeAwsMessage', () => {
  it.each([
    ['strips request ids', 'operation error: request id: 1234-abcd, boom', 'operation error: boom'],
    [
      'strips the credential scope to the end, as ESO does',
      'signature mismatch Credential=AKIA123/20260101/eu-west-1/secretsmanager/aws4_request, SignedHeaders=x',
      'signature mismatch',
    ],
    ['strips signatures', 'bad Signature=0123abcdef rest', 'bad rest'],
  ])('%s', (_name, input, output) => {
    expect(sanitizeAwsMessage(input)).toBe(output);
  });

  it('keeps the AWS code of a typed adapter error and sanitizes an untyped one', () => {
    expect(toAwsFailure(new SecretsManagerError('AccessDeniedException', 'no'))).toEqual({
      code: 'AccessDeniedException',
      message: 'no',
    });
    expect(toAwsFailure(new TypeError('x RequestId: abc'))).toEqual({ code: 'TypeError', message: 'x' });
  });
});

describe('value checks ESO applies after fetching', () => {
  it.each([
    ['valid padded base64 passes Base64', 'Base64', 'aGVsbG8=', undefined],
    [
      'unpadded base64 fails Base64 as Go StdEncoding does',
      'Base64',
      'aGVsbG8',
      'value is not valid base64 (decodingStrategy: Base64)',
    ],
    ['line breaks are skipped as Go does', 'Base64', 'aGVs\nbG8=', undefined],
    [
      'base64url characters fail Base64',
      'Base64',
      'a-_b',
      'value is not valid base64 (decodingStrategy: Base64)',
    ],
    ['base64url characters pass Base64URL', 'Base64URL', 'a-_b', undefined],
    ['Auto never fails', 'Auto', 'not base64 at all!', undefined],
    ['None never fails', 'None', '***', undefined],
  ] as const)('%s', (_name, strategy, value, problem) => {
    expect(decodingProblem(strategy, value)).toBe(problem);
  });

  it('fails null bytes only under nullBytePolicy Fail', () => {
    expect(nullByteProblem('Fail', 'a\u0000b')).toBe('value contains null bytes (nullBytePolicy: Fail)');
    expect(nullByteProblem('Ignore', 'a\u0000b')).toBeUndefined();
  });
});
