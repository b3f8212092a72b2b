import { describe, expect, it } from 'vitest';
import { iamRoles, roleStatements } from '../../helpers/cfn-yaml.js';

const doc = iamRoles();
// A CloudFormation pseudo parameter as written in the template (not a JS template).
const pseudo = (name: string) => ['$', `{AWS::${name}}`].join('');
const POD_IDENTITY = ['eks:ListPodIdentityAssociations', 'eks:DescribePodIdentityAssociation'];

describe("the EKS Pod Identity lookup's IAM (the ESO controller's role, for stores without auth)", () => {
  it('is granted to exactly the functions that run the preflight or its coverage', () => {
    const granted = Object.keys(doc.Resources).filter((role) =>
      roleStatements(doc, role).some((s) => (s.Action as string[]).some((a) => POD_IDENTITY.includes(a))),
    );
    expect(granted.sort()).toEqual(['FanoutRole', 'ReconcileRole']);
  });

  it('is read-only and scoped to this account’s clusters and their associations', () => {
    for (const role of ['FanoutRole', 'ReconcileRole']) {
      const [statement, ...more] = roleStatements(doc, role).filter((s) =>
        (s.Action as string[]).some((a) => a.startsWith('eks:') && a.includes('PodIdentity')),
      );
      expect(more).toEqual([]);
      expect(statement?.Action).toEqual(POD_IDENTITY);
      expect(statement?.Resource).toEqual([
        { '!Sub': `arn:${pseudo('Partition')}:eks:*:${pseudo('AccountId')}:cluster/*` },
        { '!Sub': `arn:${pseudo('Partition')}:eks:*:${pseudo('AccountId')}:podidentityassociation/*` },
      ]);
    }
  });
});
