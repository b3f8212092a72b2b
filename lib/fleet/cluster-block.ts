import { isMap, isScalar, type Node } from 'yaml';
import { type IdChecks, LITERAL_TOKEN, plainHttp } from './deploy-checks.js';
import { esoBlock } from './eso-block.js';
import { awsRegion, base64Pem, dnsLabel, eksClusterName, httpUrl, noWhitespace } from './fleet-checks.js';
import { type ClusterAuth, type ClusterConfig, SECRET_POLICIES } from './fleet-config.js';
import { labelMap } from './labels.js';
import type { Fields, YamlReader } from './yaml-reader.js';

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
  'preflightRoleArn',
  'eso',
  'argocdUrl',
  'argocdTokenSecret',
  'argocdToken',
  'argocdCaData',
  'labels',
] as const;

const AUTH_KINDS = ['token', 'tokenSecret', 'eks'] as const;

/** One entry of `clusters`: its API server, auth, Argo CD and Flux blocks, preflight and labels. */
export function cluster(reader: YamlReader, node: Node | null, path: string, ids: IdChecks): ClusterConfig {
  const fields = reader.fields(node, path, CLUSTER_KEYS);
  const name = fields.requiredString('name', dnsLabel);
  // An EKS cluster's endpoint (and CA) may come from DescribeCluster instead.
  const authNode = fields.has('auth') ? fields.node('auth') : null;
  const server =
    isMap(authNode) && authNode.has('eks')
      ? fields.string('server', httpUrl('API server URL'))
      : fields.requiredString('server', httpUrl('API server URL'));
  fields.localOnly('server', plainHttp(server));
  const caData = fields.string('caData', base64Pem);
  const concurrency = fields.integer('concurrency', 1, 100);
  const timeoutMs = fields.integer('timeoutMs', 100, 300_000);
  const secretPolicy = fields.oneOf('secretPolicy', SECRET_POLICIES);
  const preflightRoleArn = fields.string('preflightRoleArn', ids.preflightRole);
  const eso = esoBlock(reader, fields);
  const argocd = argocdBlock(reader, fields);
  const flux = namespaceBlock(reader, fields, 'flux');
  const labels = fields.has('labels')
    ? labelMap(reader, fields.node('labels'), fields.pathOf('labels'))
    : undefined;
  const auth = authOf(reader, fields, ids);
  return {
    name,
    ...(server === undefined ? {} : { server }),
    ...(caData === undefined ? {} : { caData: caData.replace(/\s+/g, '') }),
    auth,
    ...(argocd === undefined ? {} : { argocd }),
    ...(flux === undefined ? {} : { flux }),
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(secretPolicy === undefined ? {} : { secretPolicy }),
    ...(preflightRoleArn === undefined ? {} : { preflightRoleArn }),
    ...(eso === undefined ? {} : { eso }),
    ...argocdApi(fields, ids),
    ...(labels === undefined ? {} : { labels }),
  };
}

/** The Argo CD API server (links, rendered manifests) and how to authenticate to it. */
function argocdApi(
  fields: Fields,
  ids: IdChecks,
): Pick<ClusterConfig, 'argocdUrl' | 'argocdTokenSecret' | 'argocdToken' | 'argocdCaData'> {
  const url = fields.string('argocdUrl', httpUrl('Argo CD URL'));
  fields.localOnly('argocdUrl', plainHttp(url));
  fields.localOnly('argocdToken', LITERAL_TOKEN);
  if (fields.has('argocdToken') && fields.has('argocdTokenSecret'))
    fields.fail('argocdToken', 'and argocdTokenSecret are exclusive; set one');
  const tokenSecret = fields.string('argocdTokenSecret', ids.secret);
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

function authOf(reader: YamlReader, cluster: Fields, ids: IdChecks): ClusterAuth {
  if (!cluster.has('auth')) {
    cluster.missing('auth');
    return { token: '' };
  }
  const fields = reader.fields(cluster.node('auth'), cluster.pathOf('auth'), AUTH_KINDS);
  const given = AUTH_KINDS.filter((kind) => fields.has(kind));
  fields.localOnly('token', LITERAL_TOKEN);
  if (given.length !== 1) {
    if (!fields.broken) fields.fail(undefined, `exactly one of ${AUTH_KINDS.join(', ')}`);
    return { token: '' };
  }
  if (given[0] === 'token') return { token: fields.requiredString('token', noWhitespace) };
  if (given[0] === 'tokenSecret') return { tokenSecret: fields.requiredString('tokenSecret', ids.secret) };
  const eks = reader.fields(fields.node('eks'), fields.pathOf('eks'), ['clusterName', 'region', 'roleArn']);
  const role = eks.string('roleArn', ids.role);
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

/** `argocd: { namespace: argocd }` or `argocd: { namespaces: [argocd, team-a] }` (exactly one of them). */
function argocdBlock(
  reader: YamlReader,
  cluster: Fields,
): { namespace: string; namespaces?: readonly string[] } | undefined {
  if (!cluster.has('argocd')) return undefined;
  const fields = reader.fields(cluster.node('argocd'), cluster.pathOf('argocd'), ['namespace', 'namespaces']);
  if (fields.has('namespaces')) {
    if (fields.has('namespace')) fields.fail('namespace', 'and namespaces are exclusive; set one');
    const path = fields.pathOf('namespaces');
    const names = reader.sequence(fields.node('namespaces'), path).flatMap((node, i) => {
      const value = isScalar(node) ? node.value : undefined;
      const problem = typeof value === 'string' ? dnsLabel(value) : 'must be a namespace name';
      if (problem === undefined && typeof value === 'string') return [value];
      reader.fail(node, `${path}[${i}]`, problem ?? 'must be a namespace name');
      return [];
    });
    const unique = [...new Set(names)];
    if (unique.length < names.length) fields.fail('namespaces', 'must not repeat a namespace');
    if (names.length === 0) fields.fail('namespaces', 'must name at least one namespace');
    return { namespace: unique[0] ?? 'argocd', namespaces: unique };
  }
  return { namespace: fields.requiredString('namespace', dnsLabel) };
}
