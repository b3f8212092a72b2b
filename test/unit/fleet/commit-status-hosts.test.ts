import { describe, expect, it } from 'vitest';
import { checkFleetFile } from '../../../lib/fleet/fleet-file.js';

const fleet = (repository: string) => `
clusters:
  - name: hub
    server: https://k8s.example
    auth: { tokenSecret: gitops-sync/hub }
repositories:
${repository}`;

describe('validate: commitStatus on every host that has a status API, refused where none can be posted', () => {
  it.each([
    { host: 'Bitbucket Server', repo: '  - url: https://bitbucket.example/scm/PLAT/gitops.git\n' },
    {
      host: 'Bitbucket Server (provider given, context path)',
      repo: '  - url: https://git.example/bitbucket/scm/PLAT/gitops.git\n    provider: bitbucket-server\n',
    },
    { host: 'Azure DevOps', repo: '  - url: https://dev.azure.com/org/project/_git/gitops\n' },
    { host: 'Gitea', repo: '  - url: https://gitea.example/infra/gitops.git\n    provider: gitea\n' },
    {
      host: 'Forgejo with an API URL',
      repo: '  - url: https://code.example/infra/gitops\n    provider: gitea\n    apiUrl: https://code.example/api/v1\n',
    },
    { host: 'GitHub', repo: '  - url: https://github.com/org/gitops\n' },
  ])('accepts commitStatus: true on $host', ({ repo }) => {
    const result = checkFleetFile(fleet(`${repo}    tokenSecret: gitops-sync/git\n    commitStatus: true\n`));
    expect(result.ok ? [] : result.problems).toEqual([]);
  });

  it.each([
    {
      host: 'a generic repository',
      repo: '  - url: https://git.example/org/gitops\n    provider: generic\n',
      problem: /repositories\[0\]\.commitStatus: is not possible with provider generic/,
    },
    {
      host: 'an unknown host',
      repo: '  - url: https://git.example/org/gitops\n',
      problem: /repositories\[0\]\.commitStatus: cannot tell the Git host from git\.example: set provider/,
    },
    {
      host: 'an Azure DevOps URL without _git',
      repo: '  - url: https://dev.azure.example/org/gitops\n    provider: azure-devops\n',
      problem: /repositories\[0\]\.commitStatus: needs an Azure DevOps URL naming the repository/,
    },
  ])('refuses commitStatus: true on $host, saying why', ({ repo, problem }) => {
    const result = checkFleetFile(fleet(`${repo}    commitStatus: true\n`));
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.problems.join('\n')).toMatch(problem);
  });

  it('lets such a repository be without commit statuses', () => {
    const result = checkFleetFile(fleet('  - url: https://git.example/org/gitops\n    provider: generic\n'));
    expect(result.ok ? [] : result.problems).toEqual([]);
  });
});

describe('validate: deployments only on GitHub and GitLab', () => {
  it.each([
    { host: 'GitHub', repo: '  - url: https://github.com/org/gitops\n' },
    { host: 'GitLab', repo: '  - url: https://gitlab.example/group/gitops\n    provider: gitlab\n' },
  ])('accepts deployments: true on $host', ({ repo }) => {
    const result = checkFleetFile(fleet(`${repo}    tokenSecret: gitops-sync/git\n    deployments: true\n`));
    expect(result.ok ? [] : result.problems).toEqual([]);
  });

  it.each([
    {
      host: 'Bitbucket Server',
      repo: '  - url: https://bitbucket.example/scm/PLAT/gitops.git\n',
      problem:
        /repositories\[0\]\.deployments: is not possible on bitbucket-server \(deployments exist on GitHub and GitLab only\)/,
    },
    {
      host: 'an unknown host',
      repo: '  - url: https://git.example/org/gitops\n',
      problem: /repositories\[0\]\.deployments: cannot tell the Git host from git\.example: set provider/,
    },
  ])('refuses deployments: true on $host, saying why', ({ repo, problem }) => {
    const result = checkFleetFile(fleet(`${repo}    deployments: true\n`));
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.problems.join('\n')).toMatch(problem);
  });
});
