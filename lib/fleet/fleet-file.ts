import { readFile } from 'node:fs/promises';
import { isMap, type Node } from 'yaml';
import { FleetConfigError } from '../errors.js';
import { auditSettings } from './audit-block.js';
import type { AwsScopes } from './aws-scopes.js';
import { cluster } from './cluster-block.js';
import { type IdChecks, idChecks } from './deploy-checks.js';
import { type FleetConfig, SECRET_POLICIES } from './fleet-config.js';
import { wavesOf } from './fleet-waves.js';
import { githubAppBlock } from './github-app-block.js';
import { repoKey, repository } from './repository-block.js';
import { store } from './store-block.js';
import type { YamlReader } from './yaml-reader.js';
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

export interface FleetFileOptions {
  /** Default `deployed`: literal tokens and plain-http URLs are refused (see README "Fleet file"). */
  readonly mode?: FleetMode;
  /** What the deployed policies allow: every secret and role the fleet names must fall inside. */
  readonly scopes?: AwsScopes;
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
