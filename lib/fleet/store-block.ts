import type { Node } from 'yaml';
import type { IdChecks } from './deploy-checks.js';
import { awsRegion, dnsLabel } from './fleet-checks.js';
import type { StoreOverride } from './fleet-config.js';
import type { YamlReader } from './yaml-reader.js';

const STORE_KEYS = ['kind', 'name', 'namespace', 'cluster', 'service', 'region', 'role', 'prefix'] as const;

/** One entry of `secretStores`: where a SecretStore's secrets really live, for the preflight. */
export function store(
  reader: YamlReader,
  node: Node | null,
  path: string,
  clusters: ReadonlySet<string>,
  ids: IdChecks,
): StoreOverride {
  const fields = reader.fields(node, path, STORE_KEYS);
  const kind = fields.oneOf('kind', ['SecretStore', 'ClusterSecretStore'] as const);
  if (!fields.has('kind')) fields.missing('kind');
  if (kind === 'ClusterSecretStore' && fields.has('namespace')) {
    fields.fail('namespace', 'is only for a SecretStore (a ClusterSecretStore has none)');
  }
  const namespace = fields.string('namespace', dnsLabel);
  const cluster = fields.string('cluster', (value) =>
    clusters.has(value) ? undefined : 'must name a cluster of this fleet',
  );
  const role = fields.string('role', ids.role);
  const prefix = fields.string('prefix');
  return {
    kind: kind ?? 'SecretStore',
    name: fields.requiredString('name'),
    ...(namespace === undefined ? {} : { namespace }),
    ...(cluster === undefined ? {} : { cluster }),
    service: fields.oneOf('service', ['SecretsManager', 'ParameterStore'] as const) ?? 'SecretsManager',
    region: fields.requiredString('region', awsRegion),
    ...(role === undefined ? {} : { role }),
    ...(prefix === undefined ? {} : { prefix }),
  };
}
