import { privateKeyProblem } from '../check-run/private-key.js';
import type { Check } from './fleet-checks.js';
import type { GitHubAppConfig } from './fleet-config.js';
import type { Fields, YamlReader } from './yaml-reader.js';

const GITHUB_APP_KEYS = ['appId', 'privateKeySecret', 'privateKey', 'installationId'] as const;
const MAX_ID = Number.MAX_SAFE_INTEGER;

/**
 * Top-level `githubApp: { appId, privateKeySecret | privateKey, installationId? }`: the GitHub App the
 * check runs authenticate as. A literal `privateKey` is for the local stack and is checked here to be a
 * PEM RSA key; a secret's key is checked when first read (cold start). Undefined when absent.
 */
export function githubAppBlock(reader: YamlReader, root: Fields, secret: Check): GitHubAppConfig | undefined {
  if (!root.has('githubApp')) return undefined;
  const fields = reader.fields(root.node('githubApp'), root.pathOf('githubApp'), GITHUB_APP_KEYS);
  const appId = fields.integer('appId', 1, MAX_ID);
  if (!fields.has('appId')) fields.missing('appId');
  const installationId = fields.integer('installationId', 1, MAX_ID);
  fields.localOnly(
    'privateKey',
    'a literal private key is only for the local stack (validate --local); use privateKeySecret',
  );
  if (fields.has('privateKey') && fields.has('privateKeySecret'))
    fields.fail('privateKey', 'and privateKeySecret are exclusive; set one');
  else if (!fields.has('privateKey') && !fields.has('privateKeySecret')) fields.missing('privateKeySecret');
  const privateKeySecret = fields.string('privateKeySecret', secret);
  const privateKey = fields.string('privateKey', privateKeyProblem);
  return {
    appId: appId ?? 0,
    ...(privateKeySecret === undefined ? {} : { privateKeySecret }),
    ...(privateKey === undefined ? {} : { privateKey }),
    ...(installationId === undefined ? {} : { installationId }),
  };
}
