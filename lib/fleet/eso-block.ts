import { dnsLabel } from './fleet-checks.js';
import type { EsoController } from './fleet-config.js';
import type { Fields, YamlReader } from './yaml-reader.js';

/** Where External Secrets Operator's controller runs when the fleet file does not say (its Helm chart's defaults). */
export const DEFAULT_ESO_CONTROLLER: EsoController = {
  namespace: 'external-secrets',
  serviceAccount: 'external-secrets',
};

// A ServiceAccount name is a DNS subdomain (RFC 1123): lowercase labels joined by dots, at most 253.
const SUBDOMAIN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
const serviceAccountName = (value: string) =>
  value.length <= 253 && SUBDOMAIN.test(value)
    ? undefined
    : 'must be a ServiceAccount name (lowercase letters, digits, "-" and ".", at most 253)';

/** A cluster's `eso: { namespace, serviceAccount }`, each defaulting to the Helm chart's `external-secrets`. */
export function esoBlock(reader: YamlReader, cluster: Fields): EsoController | undefined {
  if (!cluster.has('eso')) return undefined;
  const fields = reader.fields(cluster.node('eso'), cluster.pathOf('eso'), ['namespace', 'serviceAccount']);
  return {
    namespace: fields.string('namespace', dnsLabel) ?? DEFAULT_ESO_CONTROLLER.namespace,
    serviceAccount:
      fields.string('serviceAccount', serviceAccountName) ?? DEFAULT_ESO_CONTROLLER.serviceAccount,
  };
}
