import { errorMessage } from '../errors.js';
import { SecretsManagerError } from './secrets-manager-api.js';

export interface AwsFailure {
  readonly code: string;
  readonly message: string;
}

export interface FailureOutcome {
  readonly outcome: 'missing-secret' | 'access-denied' | 'unchecked' | 'error';
  readonly message: string;
  /** ESO maps this failure to `NoSecretErr`, which `deletionPolicy: Delete/Merge` skips instead of failing. */
  readonly noSecretErr: boolean;
}

/** `awsCode` of a failed AssumeRole (denied, refused by policy, timed out): the read is `unchecked`. */
export const ROLE_NOT_ASSUMED = 'RoleNotAssumed';

const ACCESS_CODES = new Set([
  'AccessDeniedException',
  'AccessDenied',
  'DecryptionFailure',
  'UnrecognizedClientException',
]);

/** ESO's `SanitizeErr`, plus signatures: no request ids, no credential scopes in a recorded message. */
export function sanitizeAwsMessage(message: string): string {
  return message
    .replace(/request id: \S+/gi, '')
    .replace(/RequestId: ?\S+/g, '')
    .replace(/ ?Credential=.+/g, '')
    .replace(/Signature=[0-9a-fA-F]+/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);
}

export function toAwsFailure(error: unknown): AwsFailure {
  if (error instanceof SecretsManagerError)
    return { code: error.awsCode, message: sanitizeAwsMessage(error.message) };
  const name = error instanceof Error ? error.name : 'Error';
  return { code: name, message: sanitizeAwsMessage(errorMessage(error)) };
}

/** How ESO's AWS provider sees a failed read, as a preflight outcome. */
export function failureOutcome(failure: AwsFailure): FailureOutcome {
  // The identity ESO would read with could not be taken on: nothing was learnt about the secret.
  if (failure.code === ROLE_NOT_ASSUMED)
    return { outcome: 'unchecked', message: failure.message, noSecretErr: false };
  if (failure.code === 'ResourceNotFoundException') {
    return { outcome: 'missing-secret', message: 'Secret does not exist', noSecretErr: true };
  }
  if (failure.message.includes('marked for deletion')) {
    // ESO only recognises InvalidParameterException here; AWS sends InvalidRequestException.
    return {
      outcome: 'missing-secret',
      message: `secret is scheduled for deletion (${failure.code})`,
      noSecretErr: failure.code === 'InvalidParameterException',
    };
  }
  if (ACCESS_CODES.has(failure.code) || /\bKMS\b/.test(failure.message)) {
    const kms = failure.code === 'DecryptionFailure' || /\bKMS\b/.test(failure.message);
    return {
      outcome: 'access-denied',
      message: `${kms ? 'KMS decrypt denied' : 'access denied'} (${failure.code}): ${failure.message}`,
      noSecretErr: false,
    };
  }
  return { outcome: 'error', message: `${failure.code}: ${failure.message}`, noSecretErr: false };
}
