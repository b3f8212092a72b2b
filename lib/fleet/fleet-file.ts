import { readFile } from 'node:fs/promises';
import { isMap, type Node } from 'yaml';
import { FleetConfigError } from '../errors.js';
import {
  awsRegion,
  base64Pem,
  dnsLabel,
  eksClusterName,
  httpUrl,
  noWhitespace,
  repositoryUrl,
  roleArn,
  secretId,
} from './fleet-checks.js';
import {
  type ClusterAuth,
  type ClusterConfig,
  type FleetConfig,
  REPOSITORY_PROVIDERS,
  type RepositoryConfig,
  SECRET_POLICIES,
  type StoreOverride,
} from './fleet-config.js';
import type { Fields, YamlReader } from './yaml-reader.js';
import { YamlReader as Reader } from './yaml-reader.js';

const ROOT_KEYS = ['clusters', 'repositories', 'secretPolicy', 'secretStores'] as const;
const CLUSTER_KEYS = [
  'name',
  'server',
  'caData',
  'auth',
  'argocd',
  'flux',
  'concurrency',
  'timeoutMs',
  'secretPolicy',
  'argocdUrl',
  'argocdTokenSecret',
  'argocdToken',
  'argocdCaData',
] as const;
const AUTH_KINDS = ['token', 'tokenSecret', 'eks'] as const;
const REPOSITORY_KEYS = ['url', 'tokenSecret', 'token', 'provider', 'apiUrl'] as const;
const STORE_KEYS = ['kind', 'name', 'namespace', 'cluster', 'service', 'region', 'role', 'prefix'] as const;

/** Parses and validates the fleet file; the first problem is a `FleetConfigError` naming file, line and field. */
export function parseFleetFile(text: string, source = 'fleet.yaml'): FleetConfig {
  const { reader, root } = Reader.parse(text, source);
  if (root === null) throw new FleetConfigError(`${source}:1: clusters: is required (the file is empty)`);
  const fields = reader.fields(root, '', ROOT_KEYS);
  if (!fields.has('clusters')) reader.fail(root, 'clusters', 'is required');
  const clusterNodes = reader.sequence(fields.node('clusters'), 'clusters');
  if (clusterNodes.length === 0) fields.fail('clusters', 'must list at least one cluster');
  const clusters = clusterNodes.map((node, i) => cluster(reader, node, `clusters[${i}]`));
  unique(reader, clusterNodes, clusters, (c) => c.name, 'clusters', 'name', 'is used by another cluster');
  const repoNodes = fields.has('repositories')
    ? reader.sequence(fields.node('repositories'), 'repositories')
    : [];
  const repositories = repoNodes.map((node, i) => repository(reader, node, `repositories[${i}]`));
  unique(reader, repoNodes, repositories, (r) => repoKey(r.url), 'repositories', 'url', 'is listed twice');
  const storeNodes = fields.has('secretStores')
    ? reader.sequence(fields.node('secretStores'), 'secretStores')
    : [];
  const names = new Set(clusters.map((c) => c.name));
  const secretStores = storeNodes.map((node, i) => store(reader, node, `secretStores[${i}]`, names));
  return Object.freeze({
    clusters,
    repositories,
    secretPolicy: fields.oneOf('secretPolicy', SECRET_POLICIES) ?? 'block',
    secretStores,
  });
}

export async function loadFleetFile(path: string): Promise<FleetConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new FleetConfigError(`${path}: cannot be read (${(error as { code?: string }).code ?? 'error'})`, {
      cause: error,
    });
  }
  return parseFleetFile(text, path);
}

function cluster(reader: YamlReader, node: Node | null, path: string): ClusterConfig {
  const fields = reader.fields(node, path, CLUSTER_KEYS);
  const name = fields.requiredString('name', dnsLabel);
  const server = fields.requiredString('server', httpUrl('API server URL'));
  const caData = fields.string('caData', base64Pem);
  const concurrency = fields.integer('concurrency', 1, 100);
  const timeoutMs = fields.integer('timeoutMs', 100, 300_000);
  const secretPolicy = fields.oneOf('secretPolicy', SECRET_POLICIES);
  const argocd = namespaceBlock(reader, fields, 'argocd');
  const flux = namespaceBlock(reader, fields, 'flux');
  return {
    name,
    server,
    ...(caData === undefined ? {} : { caData: caData.replace(/\s+/g, '') }),
    auth: auth(reader, fields),
    ...(argocd === undefined ? {} : { argocd }),
    ...(flux === undefined ? {} : { flux }),
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(secretPolicy === undefined ? {} : { secretPolicy }),
    ...argocdApi(fields),
  };
}

/** The Argo CD API server (links, rendered manifests) and how to authenticate to it. */
function argocdApi(
  fields: Fields,
): Pick<ClusterConfig, 'argocdUrl' | 'argocdTokenSecret' | 'argocdToken' | 'argocdCaData'> {
  const url = fields.string('argocdUrl', httpUrl('Argo CD URL'));
  if (fields.has('argocdToken') && fields.has('argocdTokenSecret'))
    fields.fail('argocdToken', 'and argocdTokenSecret are exclusive; set one');
  const tokenSecret = fields.string('argocdTokenSecret', secretId);
  const token = fields.string('argocdToken', noWhitespace);
  const caData = fields.string('argocdCaData', base64Pem);
  for (const key of ['argocdTokenSecret', 'argocdToken', 'argocdCaData']) {
    if (url === undefined && fields.has(key)) fields.fail(key, 'needs argocdUrl');
  }
  return {
    ...(url === undefined ? {} : { argocdUrl: url.replace(/\/+$/, '') }),
    ...(tokenSecret === undefined ? {} : { argocdTokenSecret: tokenSecret }),
    ...(token === undefined ? {} : { argocdToken: token }),
    ...(caData === undefined ? {} : { argocdCaData: caData.replace(/\s+/g, '') }),
  };
}

function auth(reader: YamlReader, cluster: Fields): ClusterAuth {
  if (!cluster.has('auth')) reader.fail(cluster.self, cluster.pathOf('auth'), 'is required');
  const fields = reader.fields(cluster.node('auth'), cluster.pathOf('auth'), AUTH_KINDS);
  const given = AUTH_KINDS.filter((kind) => fields.has(kind));
  if (given.length !== 1) fields.fail(undefined, `exactly one of ${AUTH_KINDS.join(', ')}`);
  if (given[0] === 'token') return { token: fields.requiredString('token', noWhitespace) };
  if (given[0] === 'tokenSecret') return { tokenSecret: fields.requiredString('tokenSecret', secretId) };
  const eks = reader.fields(fields.node('eks'), fields.pathOf('eks'), ['clusterName', 'region', 'roleArn']);
  const role = eks.string('roleArn', roleArn);
  return {
    eks: {
      clusterName: eks.requiredString('clusterName', eksClusterName),
      region: eks.requiredString('region', awsRegion),
      ...(role === undefined ? {} : { roleArn: role }),
    },
  };
}

function namespaceBlock(reader: YamlReader, cluster: Fields, key: string): { namespace: string } | undefined {
  if (!cluster.has(key)) return undefined;
  const fields = reader.fields(cluster.node(key), cluster.pathOf(key), ['namespace']);
  return { namespace: fields.requiredString('namespace', dnsLabel) };
}

function repository(reader: YamlReader, node: Node | null, path: string): RepositoryConfig {
  const fields = reader.fields(node, path, REPOSITORY_KEYS);
  const url = fields.requiredString('url', repositoryUrl);
  if (fields.has('token') && fields.has('tokenSecret'))
    fields.fail('token', 'and tokenSecret are exclusive; set one');
  const token = fields.string('token', noWhitespace);
  const tokenSecret = fields.string('tokenSecret', secretId);
  const provider = fields.oneOf('provider', REPOSITORY_PROVIDERS);
  const apiUrl = fields.string('apiUrl', httpUrl('API URL'));
  return {
    url,
    ...(tokenSecret === undefined ? {} : { tokenSecret }),
    ...(token === undefined ? {} : { token }),
    ...(provider === undefined ? {} : { provider }),
    ...(apiUrl === undefined ? {} : { apiUrl }),
  };
}

function store(
  reader: YamlReader,
  node: Node | null,
  path: string,
  clusters: ReadonlySet<string>,
): StoreOverride {
  const fields = reader.fields(node, path, STORE_KEYS);
  const kind = fields.oneOf('kind', ['SecretStore', 'ClusterSecretStore'] as const);
  if (kind === undefined) reader.fail(fields.self, fields.pathOf('kind'), 'is required');
  if (kind === 'ClusterSecretStore' && fields.has('namespace')) {
    fields.fail('namespace', 'is only for a SecretStore (a ClusterSecretStore has none)');
  }
  const namespace = fields.string('namespace', dnsLabel);
  const cluster = fields.string('cluster', (value) =>
    clusters.has(value) ? undefined : 'must name a cluster of this fleet',
  );
  const role = fields.string('role', roleArn);
  const prefix = fields.string('prefix');
  return {
    kind,
    name: fields.requiredString('name'),
    ...(namespace === undefined ? {} : { namespace }),
    ...(cluster === undefined ? {} : { cluster }),
    service: fields.oneOf('service', ['SecretsManager', 'ParameterStore'] as const) ?? 'SecretsManager',
    region: fields.requiredString('region', awsRegion),
    ...(role === undefined ? {} : { role }),
    ...(prefix === undefined ? {} : { prefix }),
  };
}

function unique<T>(
  reader: YamlReader,
  nodes: readonly (Node | null)[],
  values: readonly T[],
  key: (value: T) => string,
  list: string,
  field: string,
  problem: string,
): void {
  const seen = new Map<string, number>();
  values.forEach((value, i) => {
    const k = key(value);
    const first = seen.get(k);
    const node = nodes[i];
    const at = isMap(node) ? (node.get(field, true) as Node | undefined) : node;
    if (first !== undefined)
      reader.fail(at ?? node, `${list}[${i}].${field}`, `${problem} (${list}[${first}])`);
    seen.set(k, i);
  });
}

/** Enough to catch the same repository listed twice; matching uses its own canonical keys. */
function repoKey(url: string): string {
  return url
    .toLowerCase()
    .replace(/\/+$/, '')
    .replace(/\.git$/, '')
    .replace(/^https?:\/\//, '');
}
