import { type AwsScopes, preflightRoleInScope, roleInScope, secretInScope } from './aws-scopes.js';
import { type Check, roleArn, secretId } from './fleet-checks.js';

/** The checks of a secret and a role field: their form, then (deploying) their scope. */
export interface IdChecks {
  readonly secret: Check;
  readonly role: Check;
  /** A role the ExternalSecret preflight assumes (a cluster's `preflightRoleArn`). */
  readonly preflightRole: Check;
}

/** The secret and role checks for a fleet read in `scopes` (deploying), or by form alone (locally). */
export function idChecks(scopes: AwsScopes | undefined): IdChecks {
  if (scopes === undefined) return { secret: secretId, role: roleArn, preflightRole: roleArn };
  const inSecrets = secretInScope(scopes);
  const inRoles = roleInScope(scopes);
  const inPreflight = preflightRoleInScope(scopes);
  return {
    secret: (value) => secretId(value) ?? inSecrets(value),
    role: (value) => roleArn(value) ?? inRoles(value),
    preflightRole: (value) => roleArn(value) ?? inPreflight(value),
  };
}

/** The `localOnly` problem of a literal token in the fleet file. */
export const LITERAL_TOKEN =
  'a literal token is only for the local stack (validate --local); use tokenSecret';

/** The `localOnly` problem of a plain-http URL (none for https). */
export function plainHttp(url: string | undefined): string | undefined {
  return url?.startsWith('http://')
    ? 'plain http:// is only for the local stack (validate --local); use https://'
    : undefined;
}
