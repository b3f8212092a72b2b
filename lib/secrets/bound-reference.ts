import type { ExternalSecretDoc, SecretReference } from './external-secret.js';
import type { ResolvedStore } from './store-resolution.js';

export type CheckableReference = Exclude<SecretReference, { type: 'invalid' }>;

/** A reference of an ExternalSecret with the store it names, ready to be read. */
export interface BoundReference {
  readonly externalSecret: ExternalSecretDoc;
  readonly reference: CheckableReference;
  readonly store: ResolvedStore;
}
