import type { DeliveryInput } from './delivery-input.js';
import type { WebhookProvider } from './provider-model.js';
import { secretsFor } from './secret-source.js';
import { type Verification, verifyGitHubSignature, verifyGitLabToken } from './verify.js';
import { verifyBasicAuthPassword, verifyHmacSha256 } from './verify-hmac.js';

/** The provider's own scheme, against that provider's accepted secrets only. */
export async function verifyDelivery(provider: WebhookProvider, input: DeliveryInput): Promise<Verification> {
  const secrets = secretsFor(input.secrets, provider.name);
  const { body, headers } = input;
  const scheme = provider.signature;
  switch (scheme.kind) {
    case 'github-sha256':
      return verifyGitHubSignature(body, headers, secrets);
    case 'token':
      return verifyGitLabToken(headers, secrets, scheme.header);
    case 'hmac-sha256':
      return verifyHmacSha256(body, headers, secrets, scheme);
    case 'basic-auth':
      return verifyBasicAuthPassword(headers, secrets);
  }
}
