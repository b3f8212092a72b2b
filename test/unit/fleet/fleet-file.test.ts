import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FleetConfigError } from '../../../lib/errors.js';
import { checkFleetFile, loadFleetFile, parseFleetFile } from '../../../lib/fleet/fleet-file.js';

const LOCAL = { mode: 'local' } as const;

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
    parseFleetFile(text, 'fleet.yaml', LOCAL);
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

describe('a cluster preflightRoleArn', () => {
  it('is read as the role the preflight assumes for stores without an identity', () => {
    const fleet = parseFleetFile(
      'clusters:\n  - name: spoke\n    server: https://k8s.example\n    auth: { token: t }\n    preflightRoleArn: arn:aws:iam::222222222222:role/eso-preflight\n',
      'fleet.yaml',
      LOCAL,
    );
    expect(fleet.clusters[0]?.preflightRoleArn).toBe('arn:aws:iam::222222222222:role/eso-preflight');
  });
});

describe('parseFleetFile', () => {
  it('reads every documented field of a valid file', () => {
    const fleet = parseFleetFile(FULL, 'fleet.yaml', LOCAL);
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
    const fleet = parseFleetFile(
      withCluster('    server: https://k8s.example\n    auth: { token: t }\n'),
      'fleet.yaml',
      LOCAL,
    );
    expect(fleet).toMatchObject({ secretPolicy: 'block', repositories: [], secretStores: [] });
  });

  it('reads the operator fields: argocdUrl, a repository slackChannel and the audit digest filter', () => {
    const fleet = parseFleetFile(
      `${withCluster('    server: https://k8s.example\n    auth: { token: t }\n    argocdUrl: https://argocd.example/\n')}` +
        'repositories:\n  - url: https://github.com/org/team-a\n    slackChannel: "#team-a-deploys"\n' +
        'audit:\n  digest:\n    minSeverity: medium\n    mute: [missing-finalizer, floating-image-tag]\n',
      'fleet.yaml',
      LOCAL,
    );
    expect(fleet.clusters[0]?.argocdUrl).toBe('https://argocd.example');
    expect(fleet.repositories[0]?.slackChannel).toBe('#team-a-deploys');
    expect(fleet.audit).toEqual({
      digest: { minSeverity: 'medium', mute: ['missing-finalizer', 'floating-image-tag'] },
    });
  });

  it('accepts YAML anchors shared between clusters', () => {
    const fleet = parseFleetFile(
      'clusters:\n  - name: a\n    server: https://a.example\n    auth: &auth { token: shared }\n  - name: b\n    server: https://b.example\n    auth: *auth\n',
      'fleet.yaml',
      LOCAL,
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
      'a preflightRoleArn that is not an IAM role ARN is rejected',
      withCluster(
        '    server: https://k8s.example\n    auth: { token: t }\n    preflightRoleArn: "arn:aws:iam::123456789012:user/me"\n',
      ),
      'fleet.yaml:5: clusters[0].preflightRoleArn: must be an IAM role ARN',
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
    [
      'an unknown digest severity is rejected',
      `${withCluster('    server: https://k8s.example\n    auth: { token: t }\n')}audit:\n  digest: { minSeverity: urgent }\n`,
      'fleet.yaml:6: audit.digest.minSeverity: must be one of critical, high, medium, low, info',
    ],
    [
      'a muted rule that is not a rule id is rejected',
      `${withCluster('    server: https://k8s.example\n    auth: { token: t }\n')}audit:\n  digest:\n    mute: ["Floating Tag"]\n`,
      'fleet.yaml:7: audit.digest.mute[0]: must be an audit rule id',
    ],
    [
      'a slackChannel with spaces is rejected',
      `${withCluster('    server: https://k8s.example\n    auth: { token: t }\n')}repositories:\n  - url: https://github.com/org/a\n    slackChannel: "team deploys"\n`,
      'fleet.yaml:7: repositories[0].slackChannel: must be a Slack channel',
    ],
    [
      'an argocdUrl with credentials is rejected',
      withCluster(
        '    server: https://k8s.example\n    auth: { token: t }\n    argocdUrl: https://admin:pw@argocd.example\n',
      ),
      'fleet.yaml:5: clusters[0].argocdUrl: must not carry user info',
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
      expect((await loadFleetFile(good, LOCAL)).clusters).toHaveLength(3);
      const bad = join(dir, 'bad.yaml');
      await writeFile(bad, 'clusters: []\n');
      await expect(loadFleetFile(bad)).rejects.toThrow(`${bad}:1: clusters: must list at least one cluster`);
      await expect(loadFleetFile(join(dir, 'missing.yaml'))).rejects.toThrow('cannot be read (ENOENT)');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the fleet file fields of the rollout page and commit statuses', () => {
  const fleet = (cluster: string, repository: string) => `
clusters:
  - name: hub
    server: https://k8s.example
    auth: { token: t }
${cluster}repositories:
  - url: https://github.com/org/gitops
${repository}`;

  it('reads a cluster argocdUrl (trailing slash dropped) and a repository commitStatus', () => {
    const parsed = parseFleetFile(
      fleet(
        '    argocdUrl: https://argocd.example/\n',
        '    commitStatus: true\n    commitStatusPerCluster: false\n',
      ),
      'fleet.yaml',
      LOCAL,
    );
    expect(parsed.clusters[0]?.argocdUrl).toBe('https://argocd.example');
    expect(parsed.repositories[0]).toMatchObject({ commitStatus: true, commitStatusPerCluster: false });
  });

  it.each([
    {
      name: 'a commitStatus that is not a boolean',
      cluster: '',
      repository: '    commitStatus: "yes"\n',
      problem: /commitStatus: must be true or false/,
    },
    {
      name: 'an argocdUrl that is not http(s)',
      cluster: '    argocdUrl: javascript:alert(1)\n',
      repository: '',
      problem: /argocdUrl/,
    },
  ])('refuses $name', ({ cluster, repository, problem }) => {
    expect(errorOf(fleet(cluster, repository))).toMatch(problem);
  });
});

describe('checkFleetFile', () => {
  it('reports every problem of the file, in line order, each with its own line', () => {
    const text = [
      'secretPolicy: sometimes', // 1
      'clusters:', // 2
      '  - name: Bad_Name', // 3
      '    server: ftp://k8s.example', // 4
      '    auth: { token: t }', // 5
      '  - name: ok', // 6
      '    server: https://ok.example', // 7
      '    auht: { token: t }', // 8
      'repositories:', // 9
      '  - url: git@github.com:org/repo.git', // 10
      '    provider: bitbucket-cloud', // 11
    ].join('\n');
    const result = checkFleetFile(text, 'fleet.yaml', LOCAL);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.problems).toEqual([
      'fleet.yaml:1: secretPolicy: must be one of block, warn, off',
      'fleet.yaml:3: clusters[0].name: must be a DNS label (lowercase letters, digits and "-", at most 63)',
      'fleet.yaml:4: clusters[0].server: must be an absolute http(s) API server URL',
      'fleet.yaml:6: clusters[1].auth: is required',
      'fleet.yaml:8: clusters[1].auht: unknown field (did you mean "auth"?)',
      'fleet.yaml:10: repositories[0].url: must be an http(s) URL: the orchestrator reads repositories over smart HTTP (apps may still use ssh URLs; they match the same repository)',
      'fleet.yaml:11: repositories[0].provider: must be one of github, gitlab, bitbucket, bitbucket-server, azure-devops, gitea, generic',
    ]);
  });

  it('reports a block that is not a mapping once, without "is required" for what it would hold', () => {
    const result = checkFleetFile(
      withCluster('    server: https://k8s.example\n    auth: token\n'),
      'f.yaml',
    );
    expect(result.ok ? [] : result.problems).toEqual(['f.yaml:4: clusters[0].auth: must be a mapping']);
  });

  it('reports every YAML syntax error and nothing else', () => {
    const result = checkFleetFile('clusters:\n  - name: a\n    server: [\nrepositories: {\n', 'f.yaml');
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    expect(problems.length).toBeGreaterThanOrEqual(1);
    expect(problems.every((p) => /^f\.yaml:\d+: /.test(p))).toBe(true);
    expect(problems.join('\n')).not.toContain('is required');
  });

  it('refuses literal tokens and plain http when deployed (the default), naming each field', () => {
    const text = [
      'clusters:', // 1
      '  - name: lab', // 2
      '    server: http://127.0.0.1:8001', // 3
      '    auth: { token: "super-secret-value" }', // 4
      '  - name: prod', // 5
      '    server: https://prod.example:6443', // 6
      '    auth: { tokenSecret: gitops-sync/prod }', // 7
      'repositories:', // 8
      '  - url: http://git.internal/org/repo', // 9
      '    token: also-secret', // 10
      '    apiUrl: http://git.internal/api/v4', // 11
      '  - url: https://github.com/org/gitops', // 12
    ].join('\n');
    const deployed = checkFleetFile(text, 'fleet.yaml');
    const problems = deployed.ok ? [] : deployed.problems;
    expect(problems).toEqual([
      'fleet.yaml:3: clusters[0].server: plain http:// is only for the local stack (validate --local); use https://',
      'fleet.yaml:4: clusters[0].auth.token: a literal token is only for the local stack (validate --local); use tokenSecret',
      'fleet.yaml:9: repositories[0].url: plain http:// is only for the local stack (validate --local); use https://',
      'fleet.yaml:10: repositories[0].token: a literal token is only for the local stack (validate --local); use tokenSecret',
      'fleet.yaml:11: repositories[0].apiUrl: plain http:// is only for the local stack (validate --local); use https://',
    ]);
    expect(problems.join('\n')).not.toMatch(/super-secret-value|also-secret/);
    expect(checkFleetFile(text, 'fleet.yaml', LOCAL).ok).toBe(true);
  });

  it('throws one FleetConfigError carrying every problem from parseFleetFile', () => {
    let caught: unknown;
    try {
      parseFleetFile('clusters:\n  - name: a\n  - name: b\n', 'f.yaml', LOCAL);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FleetConfigError);
    expect((caught as FleetConfigError).problems).toEqual([
      'f.yaml:2: clusters[0].server: is required',
      'f.yaml:2: clusters[0].auth: is required',
      'f.yaml:3: clusters[1].server: is required',
      'f.yaml:3: clusters[1].auth: is required',
    ]);
  });
});
