import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FleetConfigError } from '../../../lib/errors.js';
import { loadFleetFile, parseFleetFile } from '../../../lib/fleet/fleet-file.js';

const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64');

const FULL = `
secretPolicy: warn
clusters:
  - name: hub-eu
    server: https://api.hub-eu.example:6443
    caData: ${CA}
    auth:
      eks: { clusterName: hub-eu, region: eu-west-1, roleArn: arn:aws:iam::123456789012:role/gitops-sync }
    argocd: { namespace: argocd }
    concurrency: 20
    timeoutMs: 5000
  - name: spoke-1
    server: http://127.0.0.1:8001
    auth:
      tokenSecret: arn:aws:secretsmanager:eu-west-1:123456789012:secret:spoke-1-kubeconfig-AbCdEf
    argocd: { namespace: argocd }
    flux: { namespace: flux-system }
    secretPolicy: off
  - name: local
    server: http://127.0.0.1:8002/
    auth: { token: "local-token" }
repositories:
  - url: https://github.com/org/gitops
    tokenSecret: arn:aws:secretsmanager:eu-west-1:123456789012:secret:github-token-AbCdEf
    provider: github
  - url: http://127.0.0.1:9418/payments.git
    token: abc
    apiUrl: http://127.0.0.1:9000/api/v4
secretStores:
  - kind: ClusterSecretStore
    name: aws-secrets-manager
    cluster: spoke-1
    region: eu-west-1
    role: arn:aws:iam::123456789012:role/eso
    prefix: prod/
  - kind: SecretStore
    name: team-store
    namespace: payments
    service: ParameterStore
    region: eu-central-1
`;

function errorOf(text: string): string {
  try {
    parseFleetFile(text);
  } catch (error) {
    expect(error).toBeInstanceOf(FleetConfigError);
    return (error as Error).message;
  }
  throw new Error('expected the fleet file to be rejected');
}

/** A one-cluster file with `cluster` lines (indented 4) inserted as the cluster's body. */
function withCluster(body: string): string {
  return `clusters:\n  - name: c1\n${body}`;
}

describe('parseFleetFile', () => {
  it('reads every documented field of a valid file', () => {
    const fleet = parseFleetFile(FULL);
    expect(fleet.secretPolicy).toBe('warn');
    expect(fleet.clusters).toEqual([
      {
        name: 'hub-eu',
        server: 'https://api.hub-eu.example:6443',
        caData: CA,
        auth: {
          eks: {
            clusterName: 'hub-eu',
            region: 'eu-west-1',
            roleArn: 'arn:aws:iam::123456789012:role/gitops-sync',
          },
        },
        argocd: { namespace: 'argocd' },
        concurrency: 20,
        timeoutMs: 5000,
      },
      {
        name: 'spoke-1',
        server: 'http://127.0.0.1:8001',
        auth: {
          tokenSecret: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:spoke-1-kubeconfig-AbCdEf',
        },
        argocd: { namespace: 'argocd' },
        flux: { namespace: 'flux-system' },
        secretPolicy: 'off',
      },
      { name: 'local', server: 'http://127.0.0.1:8002/', auth: { token: 'local-token' } },
    ]);
    expect(fleet.repositories).toEqual([
      {
        url: 'https://github.com/org/gitops',
        tokenSecret: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:github-token-AbCdEf',
        provider: 'github',
      },
      { url: 'http://127.0.0.1:9418/payments.git', token: 'abc', apiUrl: 'http://127.0.0.1:9000/api/v4' },
    ]);
    expect(fleet.secretStores).toEqual([
      {
        kind: 'ClusterSecretStore',
        name: 'aws-secrets-manager',
        cluster: 'spoke-1',
        service: 'SecretsManager',
        region: 'eu-west-1',
        role: 'arn:aws:iam::123456789012:role/eso',
        prefix: 'prod/',
      },
      {
        kind: 'SecretStore',
        name: 'team-store',
        namespace: 'payments',
        service: 'ParameterStore',
        region: 'eu-central-1',
      },
    ]);
  });

  it('defaults the fleet-wide secret policy to block and the optional lists to empty', () => {
    const fleet = parseFleetFile(withCluster('    server: https://k8s.example\n    auth: { token: t }\n'));
    expect(fleet).toMatchObject({ secretPolicy: 'block', repositories: [], secretStores: [] });
  });

  it('accepts YAML anchors shared between clusters', () => {
    const fleet = parseFleetFile(
      'clusters:\n  - name: a\n    server: https://a.example\n    auth: &auth { token: shared }\n  - name: b\n    server: https://b.example\n    auth: *auth\n',
    );
    expect(fleet.clusters.map((c) => c.auth)).toEqual([{ token: 'shared' }, { token: 'shared' }]);
  });

  it.each([
    [
      'an empty file names the missing clusters list',
      '',
      'fleet.yaml:1: clusters: is required (the file is empty)',
    ],
    ['broken YAML reports the parser line', 'clusters:\n  - name: a\n    server: [\n', 'fleet.yaml:4:'],
    [
      'a duplicated key is a YAML error',
      'clusters: []\nclusters: []\n',
      'fleet.yaml:2: Map keys must be unique',
    ],
    [
      'an unknown top-level key is rejected with a hint',
      'cluster: []\n',
      'fleet.yaml:1: cluster: unknown field (did you mean "clusters"?)',
    ],
    [
      'a list of no clusters is rejected',
      'clusters: []\n',
      'fleet.yaml:1: clusters: must list at least one cluster',
    ],
    ['clusters must be a list', 'clusters: {}\n', 'fleet.yaml:1: clusters: must be a list'],
    [
      'a typo in a cluster key names its path',
      withCluster('    server: https://k8s.example\n    auht: { token: t }\n'),
      'fleet.yaml:4: clusters[0].auht: unknown field (did you mean "auth"?)',
    ],
    [
      'a missing server is required',
      withCluster('    auth: { token: t }\n'),
      'fleet.yaml:2: clusters[0].server: is required',
    ],
    [
      'a server that is not http(s) is rejected',
      withCluster('    server: ftp://k8s.example\n    auth: { token: t }\n'),
      'fleet.yaml:3: clusters[0].server: must be an absolute http(s) API server URL',
    ],
    [
      'a server URL with credentials is rejected',
      withCluster('    server: https://admin:pw@k8s.example\n    auth: { token: t }\n'),
      'fleet.yaml:3: clusters[0].server: must not carry user info',
    ],
    [
      'a name that is not a DNS label is rejected',
      'clusters:\n  - name: Hub_EU\n    server: https://k8s.example\n    auth: { token: t }\n',
      'fleet.yaml:2: clusters[0].name: must be a DNS label',
    ],
    [
      'two auth kinds at once are rejected',
      withCluster(
        '    server: https://k8s.example\n    auth:\n      token: t\n      tokenSecret: my-secret\n',
      ),
      'fleet.yaml:5: clusters[0].auth: exactly one of token, tokenSecret, eks',
    ],
    [
      'no auth kind at all is rejected',
      withCluster('    server: https://k8s.example\n    auth: {}\n'),
      'fleet.yaml:4: clusters[0].auth: exactly one of token, tokenSecret, eks',
    ],
    [
      'a missing auth block is required',
      withCluster('    server: https://k8s.example\n'),
      'fleet.yaml:2: clusters[0].auth: is required',
    ],
    [
      'a malformed Secrets Manager ARN is rejected',
      withCluster(
        '    server: https://k8s.example\n    auth: { tokenSecret: "arn:aws:secretsmanager:eu-west-1:123:secret:x" }\n',
      ),
      'fleet.yaml:4: clusters[0].auth.tokenSecret: must be a Secrets Manager secret ARN',
    ],
    [
      'an EKS role that is not an IAM role ARN is rejected',
      withCluster(
        '    server: https://k8s.example\n    auth:\n      eks: { clusterName: hub, region: eu-west-1, roleArn: "arn:aws:iam::123456789012:user/me" }\n',
      ),
      'fleet.yaml:5: clusters[0].auth.eks.roleArn: must be an IAM role ARN',
    ],
    [
      'an EKS block without region is rejected',
      withCluster('    server: https://k8s.example\n    auth:\n      eks: { clusterName: hub }\n'),
      'fleet.yaml:5: clusters[0].auth.eks.region: is required',
    ],
    [
      'an unknown key inside eks is rejected',
      withCluster(
        '    server: https://k8s.example\n    auth:\n      eks: { clusterName: hub, region: eu-west-1, role: x }\n',
      ),
      'fleet.yaml:5: clusters[0].auth.eks.role: unknown field (did you mean "roleArn"?)',
    ],
    [
      'caData that is not base64 is rejected',
      withCluster('    server: https://k8s.example\n    caData: "not base64!"\n    auth: { token: t }\n'),
      'fleet.yaml:4: clusters[0].caData: must be base64',
    ],
    [
      'caData that is base64 of something else than a PEM certificate is rejected',
      withCluster(
        `    server: https://k8s.example\n    caData: ${Buffer.from('hello').toString('base64')}\n    auth: { token: t }\n`,
      ),
      'fleet.yaml:4: clusters[0].caData: must be a base64-encoded PEM certificate',
    ],
    [
      'an argocd block without namespace is rejected',
      withCluster('    server: https://k8s.example\n    auth: { token: t }\n    argocd: {}\n'),
      'fleet.yaml:5: clusters[0].argocd.namespace: is required',
    ],
    [
      'a flux namespace that is not a DNS label is rejected',
      withCluster(
        '    server: https://k8s.example\n    auth: { token: t }\n    flux: { namespace: Flux_System }\n',
      ),
      'fleet.yaml:5: clusters[0].flux.namespace: must be a DNS label',
    ],
    [
      'a concurrency of zero is rejected',
      withCluster('    server: https://k8s.example\n    auth: { token: t }\n    concurrency: 0\n'),
      'fleet.yaml:5: clusters[0].concurrency: must be a whole number from 1 to 100',
    ],
    [
      'an unknown secret policy is rejected',
      withCluster('    server: https://k8s.example\n    auth: { token: t }\n    secretPolicy: ignore\n'),
      'fleet.yaml:5: clusters[0].secretPolicy: must be one of block, warn, off',
    ],
    [
      'a token given as a number asks for quotes',
      withCluster('    server: https://k8s.example\n    auth: { token: 12345 }\n'),
      'fleet.yaml:4: clusters[0].auth.token: must be a string (quote it)',
    ],
    [
      'a duplicated cluster name points at the second one',
      'clusters:\n  - name: a\n    server: https://a.example\n    auth: { token: t }\n  - name: a\n    server: https://b.example\n    auth: { token: t }\n',
      'fleet.yaml:5: clusters[1].name: is used by another cluster (clusters[0])',
    ],
    [
      'an scp-style repository URL is rejected with the reason',
      `${withCluster('    server: https://k8s.example\n    auth: { token: t }\n')}repositories:\n  - url: git@github.com:org/repo.git\n`,
      'fleet.yaml:6: repositories[0].url: must be an http(s) URL: the orchestrator reads repositories over smart HTTP',
    ],
    [
      'a repository with both token and tokenSecret is rejected',
      `${withCluster('    server: https://k8s.example\n    auth: { token: t }\n')}repositories:\n  - url: https://github.com/org/repo\n    token: a\n    tokenSecret: b\n`,
      'fleet.yaml:7: repositories[0].token: and tokenSecret are exclusive; set one',
    ],
    [
      'an unknown repository provider is rejected',
      `${withCluster('    server: https://k8s.example\n    auth: { token: t }\n')}repositories:\n  - url: https://github.com/org/repo\n    provider: bitbucket-cloud\n`,
      'fleet.yaml:7: repositories[0].provider: must be one of github, gitlab, bitbucket, bitbucket-server, azure-devops, gitea, generic',
    ],
    [
      'the same repository listed twice is rejected',
      `${withCluster('    server: https://k8s.example\n    auth: { token: t }\n')}repositories:\n  - url: https://github.com/org/repo\n  - url: https://github.com/Org/repo.git\n`,
      'fleet.yaml:7: repositories[1].url: is listed twice (repositories[0])',
    ],
    [
      'a store override naming an unknown cluster is rejected',
      `${withCluster('    server: https://k8s.example\n    auth: { token: t }\n')}secretStores:\n  - kind: ClusterSecretStore\n    name: aws\n    cluster: nowhere\n    region: eu-west-1\n`,
      'fleet.yaml:8: secretStores[0].cluster: must name a cluster of this fleet',
    ],
    [
      'a ClusterSecretStore override with a namespace is rejected',
      `${withCluster('    server: https://k8s.example\n    auth: { token: t }\n')}secretStores:\n  - kind: ClusterSecretStore\n    name: aws\n    namespace: x\n    region: eu-west-1\n`,
      'fleet.yaml:8: secretStores[0].namespace: is only for a SecretStore',
    ],
  ])('%s', (_name, text, expected) => {
    expect(errorOf(text)).toContain(expected);
  });

  it('names the source it was given in every error', () => {
    expect(() => parseFleetFile('clusters: []\n', 'config/prod-fleet.yaml')).toThrow(
      'config/prod-fleet.yaml:1: clusters: must list at least one cluster',
    );
  });

  it('never echoes a literal token in an error', () => {
    const message = errorOf(withCluster('    server: ftp://x\n    auth: { token: "super-secret-value" }\n'));
    expect(message).not.toContain('super-secret-value');
  });
});

describe('loadFleetFile', () => {
  it('reads and validates a file, naming its path in errors', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fleet-'));
    try {
      const good = join(dir, 'fleet.yaml');
      await writeFile(good, FULL);
      expect((await loadFleetFile(good)).clusters).toHaveLength(3);
      const bad = join(dir, 'bad.yaml');
      await writeFile(bad, 'clusters: []\n');
      await expect(loadFleetFile(bad)).rejects.toThrow(`${bad}:1: clusters: must list at least one cluster`);
      await expect(loadFleetFile(join(dir, 'missing.yaml'))).rejects.toThrow('cannot be read (ENOENT)');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
