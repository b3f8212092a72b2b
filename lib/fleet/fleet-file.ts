import { readFile } from 'node:fs/promises';
import { isMap, isScalar, type Node } from 'yaml';
import { SEVERITIES } from '../audit/types.js';
import { statusTarget, statusTargetProblem } from '../commit-status/status-target.js';
import { deploymentTargetProblem } from '../deployments/deployment-request.js';
import { FleetConfigError } from '../errors.js';
import { type AwsScopes, preflightRoleInScope, roleInScope, secretInScope } from './aws-scopes.js';
import { esoBlock } from './eso-block.js';
import {
  awsRegion,
  base64Pem,
  type Check,
  dnsLabel,
  eksClusterName,
  httpUrl,
  noWhitespace,
  repositoryUrl,
  roleArn,
  secretId,
  slackChannelName,
} from './fleet-checks.js';
import {
  type ClusterAuth,
  type ClusterConfig,
  type FleetConfig,
  REPOSITORY_CONTROLS,
  REPOSITORY_PROVIDERS,
  type RepositoryConfig,
  SECRET_POLICIES,
  type StoreOverride,
} from './fleet-config.js';
import { wavesOf } from './fleet-waves.js';
import { githubAppBlock } from './github-app-block.js';
import { labelMap } from './labels.js';
import type { Fields, YamlReader } from './yaml-reader.js';
import { type FleetMode, YamlReader as Reader } from './yaml-reader.js';

const ROOT_KEYS = [
  'clusters',
  'repositories',
  'secretPolicy',
  'secretStores',
  'audit',
  'waves',
  'githubApp',
] as const;
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
const REPOSITORY_KEYS = [
  'url',
  'tokenSecret',
  'token',
  'provider',
  'apiUrl',
  'slackChannel',
  'commitStatus',
  'commitStatusPerCluster',
  'deployments',
  'control',
  'checkRun',
] as const;
const STORE_KEYS = ['kind', 'name', 'namespace', 'cluster', 'service', 'region', 'role', 'prefix'] as const;

export interface FleetFileOptions {
  /** Default `deployed`: literal tokens and plain-http URLs are refused (see README "Fleet file"). */
  readonly mode?: FleetMode;
  /** What the deployed policies allow: every secret and role the fleet names must fall inside. */
  readonly scopes?: AwsScopes;
}

/** The checks of a secret and a role field: their form, then (deploying) their scope. */
interface IdChecks {
  readonly secret: Check;
  readonly role: Check;
  /** A role the ExternalSecret preflight assumes (a cluster's `preflightRoleArn`). */
  readonly preflightRole: Check;
}

function idChecks(scopes: AwsScopes | undefined): IdChecks {
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

export type FleetCheck =
  | { readonly ok: true; readonly fleet: FleetConfig }
  | { readonly ok: false; readonly problems: readonly string[] };

/** Validates the fleet file: the fleet, or every problem as `file:line: field.path: problem` in line order. */
export function checkFleetFile(
  text: string,
  source = 'fleet.yaml',
  options: FleetFileOptions = {},
): FleetCheck {
  const { reader, root } = Reader.parse(text, source, options.mode ?? 'deployed');
  if (root === null) reader.fail(undefined, 'clusters', 'is required (the file is empty)');
  const ids = idChecks(options.scopes);
  const fleet = root === undefined || root === null ? undefined : fleetOf(reader, root, ids);
  const problems = reader.messages();
  return fleet !== undefined && problems.length === 0 ? { ok: true, fleet } : { ok: false, problems };
}

/** Like `checkFleetFile`, throwing a `FleetConfigError` that lists every problem. */
export function parseFleetFile(
  text: string,
  source = 'fleet.yaml',
  options: FleetFileOptions = {},
): FleetConfig {
  const result = checkFleetFile(text, source, options);
  if (!result.ok) throw new FleetConfigError(source, result.problems);
  return result.fleet;
}

function fleetOf(reader: YamlReader, root: Node, ids: IdChecks): FleetConfig {
  const fields = reader.fields(root, '', ROOT_KEYS);
  if (!fields.has('clusters')) fields.missing('clusters');
  const clusterNodes = fields.has('clusters') ? reader.sequence(fields.node('clusters'), 'clusters') : [];
  if (fields.has('clusters') && clusterNodes.length === 0)
    fields.fail('clusters', 'must list at least one cluster');
  const clusters = clusterNodes.map((node, i) => cluster(reader, node, `clusters[${i}]`, ids));
  unique(reader, clusterNodes, clusters, (c) => c.name, 'clusters', 'name', 'is used by another cluster');
  const repoNodes = fields.has('repositories')
    ? reader.sequence(fields.node('repositories'), 'repositories')
    : [];
  const githubApp = githubAppBlock(reader, fields, ids.secret);
  const repositories = repoNodes.map((node, i) =>
    repository(reader, node, `repositories[${i}]`, ids, githubApp !== undefined),
  );
  unique(reader, repoNodes, repositories, (r) => repoKey(r.url), 'repositories', 'url', 'is listed twice');
  const storeNodes = fields.has('secretStores')
    ? reader.sequence(fields.node('secretStores'), 'secretStores')
    : [];
  const names = new Set(clusters.map((c) => c.name));
  const secretStores = storeNodes.map((node, i) => store(reader, node, `secretStores[${i}]`, names, ids));
  const audit = fields.has('audit') ? auditSettings(reader, fields) : undefined;
  const waves = wavesOf(reader, fields, clusters);
  return Object.freeze({
    clusters,
    repositories,
    secretPolicy: fields.oneOf('secretPolicy', SECRET_POLICIES) ?? 'block',
    secretStores,
    ...(audit === undefined ? {} : { audit }),
    ...(waves === undefined ? {} : { waves }),
    ...(githubApp === undefined ? {} : { githubApp }),
  });
}

export async function loadFleetFile(path: string, options: FleetFileOptions = {}): Promise<FleetConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'error';
    throw new FleetConfigError(path, [`${path}: cannot be read (${code})`], { cause: error });
  }
  return parseFleetFile(text, path, options);
}

function cluster(reader: YamlReader, node: Node | null, path: string, ids: IdChecks): ClusterConfig {
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

function repository(
  reader: YamlReader,
  node: Node | null,
  path: string,
  ids: IdChecks,
  hasGitHubApp: boolean,
): RepositoryConfig {
  const fields = reader.fields(node, path, REPOSITORY_KEYS);
  const url = fields.requiredString('url', repositoryUrl);
  fields.localOnly('url', plainHttp(url));
  if (fields.has('token') && fields.has('tokenSecret'))
    fields.fail('token', 'and tokenSecret are exclusive; set one');
  fields.localOnly('token', LITERAL_TOKEN);
  const token = fields.string('token', noWhitespace);
  const tokenSecret = fields.string('tokenSecret', ids.secret);
  const provider = fields.oneOf('provider', REPOSITORY_PROVIDERS);
  const apiUrl = fields.string('apiUrl', httpUrl('API URL'));
  const slackChannel = fields.string('slackChannel', slackChannelName);
  const commitStatus = flag(fields, 'commitStatus');
  const commitStatusPerCluster = flag(fields, 'commitStatusPerCluster');
  const control = fields.oneOf('control', REPOSITORY_CONTROLS);
  fields.localOnly('apiUrl', plainHttp(apiUrl));
  // A URL that is itself wrong is reported once, as the url's problem.
  const noStatus =
    commitStatus === true && repositoryUrl(url) === undefined
      ? statusTargetProblem({
          url,
          ...(provider === undefined ? {} : { provider }),
          ...(apiUrl === undefined ? {} : { apiUrl }),
        })
      : undefined;
  if (noStatus !== undefined) fields.fail('commitStatus', noStatus);
  const deployments = flag(fields, 'deployments');
  const noDeployments =
    deployments === true && repositoryUrl(url) === undefined
      ? deploymentTargetProblem({
          url,
          ...(provider === undefined ? {} : { provider }),
          ...(apiUrl === undefined ? {} : { apiUrl }),
        })
      : undefined;
  if (noDeployments !== undefined) fields.fail('deployments', noDeployments);
  const checkRun = flag(fields, 'checkRun');
  if (checkRun === true) {
    const problem = hasGitHubApp
      ? githubProblem(url, provider, apiUrl)
      : 'needs a top-level githubApp (appId, privateKeySecret): check runs are posted as a GitHub App';
    if (problem !== undefined) fields.fail('checkRun', problem);
  }
  return {
    url,
    ...(tokenSecret === undefined ? {} : { tokenSecret }),
    ...(token === undefined ? {} : { token }),
    ...(provider === undefined ? {} : { provider }),
    ...(apiUrl === undefined ? {} : { apiUrl }),
    ...(commitStatus === undefined ? {} : { commitStatus }),
    ...(commitStatusPerCluster === undefined ? {} : { commitStatusPerCluster }),
    ...(deployments === undefined ? {} : { deployments }),
    ...(slackChannel === undefined ? {} : { slackChannel }),
    ...(control === undefined ? {} : { control }),
    ...(checkRun === undefined ? {} : { checkRun }),
  };
}

/** Why `checkRun: true` cannot work for this repository: it must be on GitHub (github.com or Enterprise). */
function githubProblem(
  url: string,
  provider: RepositoryConfig['provider'],
  apiUrl: string | undefined,
): string | undefined {
  if (repositoryUrl(url) !== undefined) return undefined; // reported as the url's problem
  const source = {
    url,
    ...(provider === undefined ? {} : { provider }),
    ...(apiUrl === undefined ? {} : { apiUrl }),
  };
  const located = statusTarget(source, 'owner/repo');
  if (located?.host === 'github') return undefined;
  return (
    statusTargetProblem(source) ?? 'is only for GitHub repositories (set provider: github for Enterprise)'
  );
}

/** `audit: { digest: { minSeverity, mute: [rule-id] } }`: what the findings digest leaves out. */
function auditSettings(reader: YamlReader, root: Fields): FleetConfig['audit'] {
  const audit = reader.fields(root.node('audit'), root.pathOf('audit'), ['digest']);
  if (!audit.has('digest')) return {};
  const digest = reader.fields(audit.node('digest'), audit.pathOf('digest'), ['minSeverity', 'mute']);
  const minSeverity = digest.oneOf('minSeverity', SEVERITIES);
  const mute = digest.has('mute')
    ? reader.sequence(digest.node('mute'), digest.pathOf('mute')).flatMap((node, i) => {
        const value = isScalar(node) ? node.value : undefined;
        if (typeof value === 'string' && /^[a-z0-9-]+$/.test(value)) return [value];
        reader.fail(
          node,
          `${digest.pathOf('mute')}[${i}]`,
          'must be an audit rule id (e.g. floating-image-tag)',
        );
        return [];
      })
    : undefined;
  return {
    digest: {
      ...(minSeverity === undefined ? {} : { minSeverity }),
      ...(mute === undefined ? {} : { mute }),
    },
  };
}

function flag(fields: Fields, key: string): boolean | undefined {
  return fields.boolean(key);
}

function store(
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
    if (k === '') return; // a missing or invalid value, reported already
    const first = seen.get(k);
    const node = nodes[i];
    const at = isMap(node) ? (node.get(field, true) as Node | undefined) : node;
    if (first !== undefined)
      reader.fail(at ?? node, `${list}[${i}].${field}`, `${problem} (${list}[${first}])`);
    seen.set(k, i);
  });
}

const LITERAL_TOKEN = 'a literal token is only for the local stack (validate --local); use tokenSecret';

/** The `localOnly` problem of a plain-http URL (none for https). */
function plainHttp(url: string | undefined): string | undefined {
  return url?.startsWith('http://')
    ? 'plain http:// is only for the local stack (validate --local); use https://'
    : undefined;
}

/** Enough to catch the same repository listed twice; matching uses its own canonical keys. */
function repoKey(url: string): string {
  return url
    .toLowerCase()
    .replace(/\/+$/, '')
    .replace(/\.git$/, '')
    .replace(/^https?:\/\//, '');
}
