import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { iamRoles, roleStatements } from '../../helpers/cfn-yaml.js';

const doc = iamRoles();
const POD_IDENTITY = ['eks:ListPodIdentityAssociations', 'eks:DescribePodIdentityAssociation'];
// CloudFormation pseudo parameters and Serverless variables as written (not JS templates).
const pseudo = (name: string) => ['$', `{AWS::${name}}`].join('');
const v = (name: string) => ['$', '{', name, '}'].join('');

const settings = createRequire(import.meta.url)('../../../infra/deploy-settings.cjs') as {
  fleet(): { eksPodIdentityArns: string };
  eksPodIdentityArns(text: string): string[];
};

describe("the EKS Pod Identity lookup's IAM (the ESO controller's role, for stores without auth)", () => {
  it('is granted to exactly the functions that run the preflight or its coverage', () => {
    const granted = Object.keys(doc.Resources).filter((role) =>
      roleStatements(doc, role).some((s) => (s.Action as string[]).some((a) => POD_IDENTITY.includes(a))),
    );
    expect(granted.sort()).toEqual(['FanoutRole', 'ReconcileRole']);
  });

  it('is read-only, only when the fleet has such clusters, on the ARNs deploy-settings.cjs derives', () => {
    for (const role of ['FanoutRole', 'ReconcileRole']) {
      const found = roleStatements(doc, role).filter((s) =>
        (s.Action as string[]).some((a) => a.includes('PodIdentity')),
      );
      expect(found).toEqual([
        {
          Effect: 'Allow',
          Action: POD_IDENTITY,
          Resource: { '!Split': [',', { '!Sub': v('self:custom.fleet.eksPodIdentityArns') }] },
          condition: 'HasEksPodIdentity',
        },
      ]);
    }
    expect(readFileSync('infra/deploy-options.yml', 'utf8')).toContain(
      `HasEksPodIdentity: !Not [!Equals ["${v('self:custom.fleet.eksPodIdentityArns')}", ""]]`,
    );
  });

  it("names each auth.eks cluster the functions ask with their own role, and that cluster's associations", () => {
    const text = [
      'clusters:',
      '  - { name: a, auth: { eks: { clusterName: a-eks, region: eu-west-1 } } }',
      '  - { name: b, server: "https://b.example", auth: { eks: { clusterName: b-eks, region: us-east-1 } } }',
      '  - name: d',
      '    auth: { eks: { clusterName: d-eks, region: eu-west-1, roleArn: "arn:aws:iam::123456789012:role/r" } }',
      '  - { name: e, server: "https://e.example", auth: { tokenSecret: gitops-sync/dev/e }, eso: { namespace: eso } }',
    ].join('\n');
    const at = (region: string) => `arn:${pseudo('Partition')}:eks:${region}:${pseudo('AccountId')}`;
    expect(settings.eksPodIdentityArns(text)).toEqual([
      `${at('eu-west-1')}:cluster/a-eks`,
      `${at('eu-west-1')}:podidentityassociation/a-eks/*`,
      `${at('us-east-1')}:cluster/b-eks`,
      `${at('us-east-1')}:podidentityassociation/b-eks/*`,
    ]);
    const path = join(tmpdir(), `pod-identity-fleet-${process.pid}.yaml`);
    writeFileSync(path, 'clusters:\n  - { name: e, server: "https://e", auth: { token: t } }\n');
    vi.stubEnv('FLEET_CONFIG', path);
    vi.stubEnv('FLEET_SOURCE', '');
    try {
      expect(settings.fleet().eksPodIdentityArns).toBe('');
      // With FLEET_SOURCE the clusters are known only at run time: this account's, read-only.
      vi.stubEnv('FLEET_SOURCE', 'ssm:/gitops-sync/fleet');
      expect(settings.fleet().eksPodIdentityArns).toBe(
        [`${at('*')}:cluster/*`, `${at('*')}:podidentityassociation/*`].join(','),
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
