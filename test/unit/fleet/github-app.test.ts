import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deployScopes } from '../../../lib/fleet/aws-scopes.js';
import { checkFleetFile } from '../../../lib/fleet/fleet-file.js';

// Made at test time: no key is ever committed.
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PKCS1 = rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const PKCS8 = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const EC = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

const fleet = (
  githubApp: string,
  repository = '  - url: https://github.com/org/gitops\n    checkRun: true\n',
) => `
clusters:
  - name: hub
    server: https://k8s.example
    auth: { tokenSecret: gitops-sync/hub }
repositories:
${repository}${githubApp}`;

const literal = (pem: string) =>
  `githubApp:\n  appId: 12345\n  privateKey: ${JSON.stringify(pem)}\n  installationId: 678\n`;

const problems = (text: string, mode: 'deployed' | 'local' = 'deployed') => {
  const result = checkFleetFile(text, 'fleet.yaml', { mode });
  return result.ok ? [] : result.problems;
};

describe('validate: checkRun and the fleet GitHub App', () => {
  it('reads githubApp with a key secret and a checkRun repository', () => {
    const result = checkFleetFile(
      fleet('githubApp:\n  appId: 12345\n  privateKeySecret: gitops-sync/github-app\n'),
    );
    expect(result.ok && result.fleet.githubApp).toEqual({
      appId: 12345,
      privateKeySecret: 'gitops-sync/github-app',
    });
    expect(result.ok && result.fleet.repositories[0]?.checkRun).toBe(true);
  });

  it.each([
    { name: 'PKCS#1', pem: PKCS1 },
    { name: 'PKCS#8', pem: PKCS8 },
  ])('accepts a literal $name RSA key for the local stack', ({ pem }) => {
    expect(problems(fleet(literal(pem)), 'local')).toEqual([]);
  });

  it.each([
    {
      name: 'text that is no PEM',
      pem: 'not a key',
      problem: /githubApp\.privateKey: must be a PEM private key/,
    },
    {
      name: 'a PEM whose body is broken',
      pem: '-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n',
      problem: /githubApp\.privateKey: is not a readable PEM private key \(PKCS#1 or PKCS#8\)/,
    },
    { name: 'an EC key', pem: EC, problem: /githubApp\.privateKey: must be an RSA private key/ },
  ])('refuses $name as the private key', ({ pem, problem }) => {
    const found = problems(fleet(literal(pem)), 'local');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(problem);
    expect(found[0]).not.toContain('AAAA');
  });

  it.each([
    {
      name: 'checkRun without a githubApp',
      text: fleet(''),
      problem: /repositories\[0\]\.checkRun: needs a top-level githubApp/,
    },
    {
      name: 'checkRun on a GitLab repository',
      text: fleet(
        'githubApp:\n  appId: 1\n  privateKeySecret: gitops-sync/app\n',
        '  - url: https://gitlab.com/org/gitops\n    checkRun: true\n',
      ),
      problem: /repositories\[0\]\.checkRun: is only for GitHub repositories/,
    },
    {
      name: 'a literal key when deploying',
      text: fleet(literal(PKCS8)),
      problem: /githubApp\.privateKey: a literal private key is only for the local stack/,
    },
    {
      name: 'no key at all',
      text: fleet('githubApp:\n  appId: 1\n'),
      problem: /githubApp\.privateKeySecret: is required/,
    },
    {
      name: 'both keys',
      text: fleet(`githubApp:\n  appId: 1\n  privateKeySecret: x\n  privateKey: ${JSON.stringify(PKCS8)}\n`),
      problem: /githubApp\.privateKey: and privateKeySecret are exclusive/,
    },
    {
      name: 'an appId that is not a number',
      text: fleet('githubApp:\n  appId: my-app\n  privateKeySecret: gitops-sync/app\n'),
      problem: /githubApp\.appId: must be a whole number/,
    },
    {
      name: 'an unknown githubApp field',
      text: fleet('githubApp:\n  appId: 1\n  privateKeySecret: gitops-sync/app\n  clientId: x\n'),
      problem: /githubApp\.clientId/,
    },
  ])('refuses $name', ({ text, problem }) => {
    const found = problems(text, 'local');
    const all = problems(text);
    expect([...found, ...all].some((p) => problem.test(p))).toBe(true);
  });

  it('accepts a GitHub Enterprise repository with provider github', () => {
    const text = fleet(
      'githubApp:\n  appId: 1\n  privateKeySecret: gitops-sync/app\n',
      '  - url: https://ghe.example/org/gitops\n    provider: github\n    checkRun: true\n',
    );
    expect(problems(text)).toEqual([]);
  });

  it('checks the key secret against what the deployed policies let the functions read', () => {
    const scopes = deployScopes('prod', 'eu-west-1');
    const inside = fleet('githubApp:\n  appId: 1\n  privateKeySecret: gitops-sync/prod/github-app\n');
    const outside = fleet('githubApp:\n  appId: 1\n  privateKeySecret: team/github-app\n');
    const judged = (text: string) => {
      const result = checkFleetFile(text, 'fleet.yaml', { scopes });
      return result.ok ? [] : result.problems.filter((p) => p.includes('githubApp'));
    };
    expect(judged(inside)).toEqual([]);
    expect(judged(outside)).toEqual([expect.stringMatching(/githubApp\.privateKeySecret: /)]);
  });
});
