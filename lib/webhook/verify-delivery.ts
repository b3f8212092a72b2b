import type { DeliveryInput } from './delivery-input.js';
import type { GitProvider } from './push-event.js';
import { secretsFor } from './secret-source.js';
import { type Verification, verifyGitHubSignature, verifyGitLabToken } from './verify.js';
import { verifyBasicAuthPassword, verifyHmacSha256 } from './verify-hmac.js';

/** Each provider's own check, against that provider's accepted secrets only. */
export async function verifyDelivery(provider: GitProvider, input: DeliveryInput): Promise<Verification> {
  const secrets = secretsFor(input.secrets, provider);
  const { body, headers } = input;
  switch (provider) {
    case 'github':
      return verifyGitHubSignature(body, headers, secrets);
    case 'gitlab':
      return verifyGitLabToken(headers, secrets);
    case 'bitbucket':
    case 'bitbucket-server':
      return verifyHmacSha256(body, headers, secrets, { names: ['x-hub-signature'], prefix: 'sha256=' });
    case 'azure-devops':
      return verifyBasicAuthPassword(headers, secrets);
    case 'gitea':
      // Forgejo sends its own header besides Gitea's; Gogs only its own. All carry bare hex.
      return verifyHmacSha256(body, headers, secrets, {
        names: ['x-gitea-signature', 'x-forgejo-signature', 'x-gogs-signature'],
        prefix: '',
      });
    case 'generic':
      return verifyHmacSha256(body, headers, secrets, { names: ['x-signature-256'], prefix: 'sha256=' });
  }
}
