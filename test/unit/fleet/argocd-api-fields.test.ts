import { describe, expect, it } from 'vitest';
import { FleetConfigError } from '../../../lib/errors.js';
import { checkFleetFile, parseFleetFile } from '../../../lib/fleet/fleet-file.js';

// These fleets use a literal cluster token and plain http: the local stack's rules.
const LOCAL = { mode: 'local' } as const;
const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64');
const cluster = (extra: string) =>
  `clusters:\n  - name: hub\n    server: https://k8s.example\n    auth: { token: t }\n${extra}`;

function problem(text: string): string {
  try {
    parseFleetFile(text, 'fleet.yaml', LOCAL);
  } catch (error) {
    expect(error).toBeInstanceOf(FleetConfigError);
    return (error as Error).message;
  }
  throw new Error('expected the fleet file to be rejected');
}

describe('the Argo CD API fields of a cluster', () => {
  it('reads argocdUrl, argocdTokenSecret and argocdCaData, dropping a trailing slash', () => {
    const fleet = parseFleetFile(
      cluster(
        `    argocdUrl: https://argocd.example/argocd/\n    argocdTokenSecret: arn:aws:secretsmanager:eu-west-1:123456789012:secret:argocd-AbCdEf\n    argocdCaData: ${CA}\n`,
      ),
      'fleet.yaml',
      LOCAL,
    );
    expect(fleet.clusters[0]).toMatchObject({
      argocdUrl: 'https://argocd.example/argocd',
      argocdTokenSecret: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:argocd-AbCdEf',
      argocdCaData: CA,
    });
  });

  it('reads a literal argocdToken (local use)', () => {
    const fleet = parseFleetFile(
      cluster('    argocdUrl: http://127.0.0.1:8080\n    argocdToken: local-token\n'),
      'fleet.yaml',
      LOCAL,
    );
    expect(fleet.clusters[0]).toMatchObject({
      argocdUrl: 'http://127.0.0.1:8080',
      argocdToken: 'local-token',
    });
  });

  it.each([
    ['a token without a URL', '    argocdToken: t\n', 'clusters[0].argocdToken: needs argocdUrl'],
    [
      'both kinds of token',
      '    argocdUrl: https://a.example\n    argocdToken: t\n    argocdTokenSecret: s\n',
      'clusters[0].argocdToken: and argocdTokenSecret are exclusive',
    ],
    [
      'a URL with user info',
      '    argocdUrl: https://admin:pw@a.example\n',
      'clusters[0].argocdUrl: must not carry user info',
    ],
    ['a URL with a query', '    argocdUrl: https://a.example/?x=1\n', 'must not have a query or fragment'],
    [
      'a CA that is not PEM',
      '    argocdUrl: https://a.example\n    argocdCaData: aGVsbG8=\n',
      'base64-encoded PEM',
    ],
  ])('rejects %s', (_, extra, expected) => {
    expect(problem(cluster(extra))).toContain(expected);
  });

  it('never echoes a literal Argo CD token in an error', () => {
    expect(problem(cluster('    argocdToken: super-secret-argocd\n'))).not.toContain('super-secret-argocd');
  });
});

describe('the Argo CD API fields under the deployed rules', () => {
  it('refuses a literal argocdToken and a plain-http argocdUrl outside the local stack', () => {
    const result = checkFleetFile(
      'clusters:\n  - name: hub\n    server: https://k8s.example\n    auth: { tokenSecret: hub }\n    argocdUrl: http://argocd.example\n    argocdToken: literal\n',
    );
    expect(result.ok ? [] : result.problems).toEqual([
      'fleet.yaml:5: clusters[0].argocdUrl: plain http:// is only for the local stack (validate --local); use https://',
      'fleet.yaml:6: clusters[0].argocdToken: a literal token is only for the local stack (validate --local); use tokenSecret',
    ]);
  });
});
