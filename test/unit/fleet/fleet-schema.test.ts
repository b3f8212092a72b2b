import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  REPOSITORY_CONTROLS,
  REPOSITORY_PROVIDERS,
  SECRET_POLICIES,
} from '../../../lib/fleet/fleet-config.js';
import { checkFleetFile } from '../../../lib/fleet/fleet-file.js';

// The published schema (editor validation) and the validator must agree on what they can both judge.
const schema = JSON.parse(readFileSync('fleet.schema.json', 'utf8')) as object;
const validateSchema = new Ajv({ allErrors: true, strict: true, strictRequired: false }).compile(schema);

const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64');
const cluster = (body: string) => `clusters:\n  - name: c1\n${body}`;
const ok = cluster('    server: https://k8s.example:6443\n    auth: { tokenSecret: gitops-sync/c1 }\n');

const TABLE: readonly (readonly [string, string, boolean])[] = [
  ['a minimal fleet is valid', ok, true],
  ['the shipped example is valid', readFileSync('fleet.example.yaml', 'utf8'), true],
  [
    'every optional cluster field is valid',
    cluster(
      `    server: https://k8s.example\n    caData: ${CA}\n    auth:\n      eks: { clusterName: hub, region: eu-west-1, roleArn: "arn:aws:iam::123456789012:role/x" }\n    argocd: { namespace: argocd }\n    flux: { namespace: flux-system }\n    concurrency: 100\n    timeoutMs: 100\n    secretPolicy: warn\n`,
    ),
    true,
  ],
  [
    'a local cluster (http, literal token) is valid for the local stack',
    cluster('    server: http://127.0.0.1:8001\n    auth: { token: t }\n'),
    true,
  ],
  [
    'repositories and store overrides are valid',
    `${ok}repositories:\n  - url: https://github.com/org/a\n    tokenSecret: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:gh-AbCdEf"\n    provider: github\n    apiUrl: https://ghe.example/api/v3\nsecretStores:\n  - kind: SecretStore\n    name: s\n    namespace: payments\n    service: ParameterStore\n    region: eu-central-1\n    prefix: prod/\n`,
    true,
  ],
  [
    'labels, control and waves are valid',
    `${ok}    labels: { tier: prod, region: eu }\nrepositories:\n  - url: https://github.com/org/a\n    control: pin\nwaves:\n  - name: canary\n    clusters: [c*]\n    soak: 1h30m\n    maxUnhealthy: "10%"\n  - name: rest\n    soak: 0\n    maxUnhealthy: 2\n`,
    true,
  ],
  [
    'a wave selector is valid',
    `${ok}    labels: { tier: prod }\nwaves:\n  - name: prod\n    selector: { tier: prod }\n    soak: 30s\n`,
    true,
  ],
  [
    'a wave with clusters and selector is invalid',
    `${ok}    labels: { tier: prod }\nwaves:\n  - name: prod\n    clusters: [c1]\n    selector: { tier: prod }\n`,
    false,
  ],
  [
    'a checkRun repository with a githubApp is valid',
    `${ok}repositories:\n  - url: https://github.com/org/a\n    checkRun: true\ngithubApp:\n  appId: 12345\n  privateKeySecret: gitops-sync/github-app\n  installationId: 678\n`,
    true,
  ],
  ['a githubApp without a key is invalid', `${ok}githubApp:\n  appId: 12345\n`, false],
  [
    'a githubApp with an unknown field is invalid',
    `${ok}githubApp:\n  appId: 1\n  privateKeySecret: gitops-sync/app\n  webhookSecret: x\n`,
    false,
  ],
  ['a wave without a name is invalid', `${ok}waves:\n  - clusters: [c1]\n`, false],
  ['a soak that is not a duration is invalid', `${ok}waves:\n  - name: w\n    soak: 5 minutes\n`, false],
  ['a soak given in seconds as a number is invalid', `${ok}waves:\n  - name: w\n    soak: 300\n`, false],
  ['a maxUnhealthy over 100% is invalid', `${ok}waves:\n  - name: w\n    maxUnhealthy: "150%"\n`, false],
  ['a negative maxUnhealthy is invalid', `${ok}waves:\n  - name: w\n    maxUnhealthy: -1\n`, false],
  ['an empty waves list is invalid', `${ok}waves: []\n`, false],
  ['an unknown wave key is invalid', `${ok}waves:\n  - name: w\n    soakTime: 5m\n`, false],
  ['a label value given as a number is invalid', `${ok}    labels: { zone: 1 }\n`, false],
  [
    'an unknown repository control is invalid',
    `${ok}repositories:\n  - url: https://github.com/org/a\n    control: strict\n`,
    false,
  ],
  ['an unknown top-level key is invalid', `${ok}cluster: []\n`, false],
  ['no cluster at all is invalid', 'clusters: []\n', false],
  [
    'an eks cluster without server (DescribeCluster gives it) is valid',
    cluster('    auth:\n      eks: { clusterName: hub, region: eu-west-1 }\n'),
    true,
  ],
  [
    'a token cluster without server is invalid',
    cluster('    auth: { tokenSecret: gitops-sync/dev/c1 }\n'),
    false,
  ],
  ['a cluster without server is invalid', cluster('    auth: { token: t }\n'), false],
  ['a cluster name that is not a DNS label is invalid', ok.replace('name: c1', 'name: C_1'), false],
  ['an unknown cluster key is invalid', `${ok}    auht: {}\n`, false],
  [
    'a server that is not http(s) is invalid',
    ok.replace('https://k8s.example:6443', 'ftp://k8s.example'),
    false,
  ],
  ['a server with user info is invalid', ok.replace('https://', 'https://me:pw@'), false],
  [
    'two auth kinds are invalid',
    cluster('    server: https://k8s.example\n    auth: { token: t, tokenSecret: s }\n'),
    false,
  ],
  ['an empty auth block is invalid', cluster('    server: https://k8s.example\n    auth: {}\n'), false],
  [
    'an eks block without region is invalid',
    cluster('    server: https://k8s.example\n    auth: { eks: { clusterName: hub } }\n'),
    false,
  ],
  [
    'an eks role that is a user ARN is invalid',
    cluster(
      '    server: https://k8s.example\n    auth: { eks: { clusterName: hub, region: eu-west-1, roleArn: "arn:aws:iam::123456789012:user/me" } }\n',
    ),
    false,
  ],
  [
    'a malformed secret ARN is invalid',
    ok.replace('gitops-sync/c1', '"arn:aws:secretsmanager:eu-west-1:1:secret:x"'),
    false,
  ],
  [
    'a token given as a number is invalid',
    cluster('    server: https://k8s.example\n    auth: { token: 12345 }\n'),
    false,
  ],
  ['caData that is not base64 is invalid', `${ok}    caData: "not base64!"\n`, false],
  ['an argocd block without namespace is invalid', `${ok}    argocd: {}\n`, false],
  ['a concurrency of 0 is invalid', `${ok}    concurrency: 0\n`, false],
  ['a concurrency of 101 is invalid', `${ok}    concurrency: 101\n`, false],
  ['a fractional timeout is invalid', `${ok}    timeoutMs: 1500.5\n`, false],
  ['an unknown secret policy is invalid', `secretPolicy: sometimes\n${ok}`, false],
  ['an ssh repository URL is invalid', `${ok}repositories:\n  - url: git@github.com:org/repo.git\n`, false],
  [
    'a repository with token and tokenSecret is invalid',
    `${ok}repositories:\n  - url: https://github.com/org/a\n    token: a\n    tokenSecret: b\n`,
    false,
  ],
  [
    'an unknown repository provider is invalid',
    `${ok}repositories:\n  - url: https://github.com/org/a\n    provider: bitbucket-cloud\n`,
    false,
  ],
  [
    'a store override without region is invalid',
    `${ok}secretStores:\n  - kind: SecretStore\n    name: s\n`,
    false,
  ],
  [
    'a ClusterSecretStore with a namespace is invalid',
    `${ok}secretStores:\n  - kind: ClusterSecretStore\n    name: s\n    namespace: x\n    region: eu-west-1\n`,
    false,
  ],
];

describe('fleet.schema.json', () => {
  it.each(TABLE)('%s (schema and validator agree)', (_name, text, valid) => {
    const validator = checkFleetFile(text, 'fleet.yaml', { mode: 'local' });
    expect(validator.ok, validator.ok ? '' : validator.problems.join('\n')).toBe(valid);
    expect(validateSchema(parse(text)), JSON.stringify(validateSchema.errors)).toBe(valid);
  });

  it('lists exactly the providers, secret policies and repository controls the validator knows', () => {
    const definitions = (
      schema as {
        definitions: Record<string, { properties?: Record<string, { enum?: unknown }>; enum?: unknown }>;
      }
    ).definitions;
    expect(definitions.repository?.properties?.provider?.enum).toEqual([...REPOSITORY_PROVIDERS]);
    expect(definitions.secretPolicy?.enum).toEqual([...SECRET_POLICIES]);
    expect(definitions.repository?.properties?.control?.enum).toEqual([...REPOSITORY_CONTROLS]);
  });

  it("accepts SPEC's fixed fleet fields that other parts of the product read", () => {
    const fleet = parse(
      `${cluster('    server: https://k8s.example\n    auth: { tokenSecret: s }\n    argocd: { namespaces: [argocd, team-a] }\n    argocdUrl: https://argocd.example\n    argocdTokenSecret: gitops-sync/argocd\n')}repositories:\n  - url: https://github.com/org/a\n    commitStatus: true\n    slackChannel: "#team-a-deploys"\n`,
    );
    expect(validateSchema(fleet), JSON.stringify(validateSchema.errors)).toBe(true);
    expect(
      validateSchema({ ...fleet, clusters: [{ ...fleet.clusters[0], argocd: { namespaces: [] } }] }),
    ).toBe(false);
  });
});
