import { describe, expect, it } from 'vitest';
import { canonicalRepoKey, canonicalRepoKeys } from '../../../lib/matching/repo-url.js';

const WEB = 'https://github.com/acme/gitops';

describe('canonicalRepoKey', () => {
  it.each([
    ['the web URL itself', 'https://github.com/acme/gitops'],
    ['case differences anywhere, path included', 'HTTPS://GitHub.com/ACME/GitOps'],
    ['plain http', 'http://github.com/acme/gitops'],
    ['an ssh:// URL with a user', 'ssh://git@github.com/acme/gitops.git'],
    ['differs from Argo CD: a git:// URL', 'git://github.com/acme/gitops.git'],
    ['differs from Argo CD: a git+ssh:// URL', 'git+ssh://git@github.com/acme/gitops.git'],
    ['no scheme at all', 'github.com/acme/gitops'],
    ['scp-style git@host:path', 'git@github.com:acme/gitops.git'],
    ['scp-style without a user', 'github.com:acme/gitops'],
    ['a user without a password', 'https://deploy@github.com/acme/gitops'],
    [
      'differs from Argo CD: user info with a token',
      'https://x-access-token:ghp_secret@github.com/acme/gitops',
    ],
    ['differs from Argo CD: user info with a password and no scheme', 'bot:hunter2@github.com/acme/gitops'],
    ['a port on an https URL', 'https://github.com:443/acme/gitops'],
    ['the ssh.github.com alias on port 443', 'ssh://git@ssh.github.com:443/acme/gitops.git'],
    ['differs from Argo CD: one trailing slash', 'https://github.com/acme/gitops/'],
    ['one .git suffix followed by a trailing slash', 'https://github.com/acme/gitops.git/'],
    ['differs from Argo CD: surrounding whitespace', '  https://github.com/acme/gitops  '],
  ])('folds %s onto the web URL key', (_name, url) => {
    expect(canonicalRepoKey(url)).toBe(canonicalRepoKey(WEB));
    expect(canonicalRepoKey(url)).toBe('github.com/acme/gitops');
  });

  it.each([
    [
      'altssh.gitlab.com',
      'git@altssh.gitlab.com:group/sub/project.git',
      'https://gitlab.com/group/sub/project',
    ],
    ['ssh.gitlab.com', 'ssh://git@ssh.gitlab.com:443/group/project', 'https://gitlab.com/group/project'],
    [
      'a self-hosted port on the web URL',
      'https://ghe.example.com/org/repo',
      'https://ghe.example.com:8443/org/repo',
    ],
    ['a GitLab subgroup path', 'git@gitlab.example.com:a/b/c/d.git', 'https://gitlab.example.com/a/b/c/d'],
    [
      'an ssh. alias of a self-hosted host, as Argo CD allows',
      'git@ssh.git.example.com:o/r',
      'https://git.example.com/o/r',
    ],
  ])('matches %s', (_name, a, b) => {
    expect(canonicalRepoKey(a)).toBeDefined();
    expect(canonicalRepoKey(a)).toBe(canonicalRepoKey(b));
  });

  it.each([
    ['a longer repository name', 'https://github.com/acme/gitops-2'],
    ['an extra path segment', 'https://github.com/acme/gitops/sub'],
    ['another owner', 'https://github.com/acme2/gitops'],
    ['a www. host', 'https://www.github.com/acme/gitops'],
    ['a doubled .git suffix', 'https://github.com/acme/gitops.git.git'],
    ['two trailing slashes', 'https://github.com/acme/gitops//'],
    ['a doubled slash inside the path', 'https://github.com//acme/gitops'],
    ['another host', 'https://gitlab.com/acme/gitops'],
  ])('keeps %s apart from the web URL', (_name, url) => {
    expect(canonicalRepoKey(url)).not.toBe(canonicalRepoKey(WEB));
  });

  it.each([
    ['an empty string', ''],
    ['only whitespace', '   '],
    ['whitespace inside', 'https://github.com/acme/git ops'],
    ['an OCI registry URL', 'oci://ghcr.io/acme/charts'],
    ['an unknown scheme', 'ftp://github.com/acme/gitops'],
    ['a host without a path', 'https://github.com'],
    ['a host with only a slash', 'https://github.com/'],
    ['scp-style without a path', 'git@github.com:'],
    ['a query string', 'https://github.com/acme/gitops?ref=main'],
    ['a fragment', 'https://github.com/acme/gitops#main'],
    ['a bad port', 'https://github.com:http/acme/gitops'],
    ['a host with odd characters', 'https://git!hub.com/acme/gitops'],
  ])('returns undefined for %s', (_name, url) => {
    expect(canonicalRepoKey(url)).toBeUndefined();
  });

  it('does not fold ssh. off a two-label host', () => {
    expect(canonicalRepoKey('https://ssh.com/acme/gitops')).toBe('ssh.com/acme/gitops');
  });

  it('never keeps credentials in the key', () => {
    const key = canonicalRepoKey('https://x-access-token:ghp_secret@github.com/acme/gitops');
    expect(key).not.toContain('ghp_secret');
    expect(key).not.toContain('x-access-token');
  });

  it('drops junk and duplicates when folding a list of URLs', () => {
    const keys = canonicalRepoKeys([WEB, `${WEB}.git`, 'git@github.com:acme/gitops.git', 'oci://x/y', '']);
    expect([...keys]).toEqual(['github.com/acme/gitops']);
  });
});

describe('canonicalRepoKey across the URL forms of each Git host', () => {
  it.each([
    [
      'github.com/org/repo',
      'ssh://git@github.com:org/repo.git',
      'scp-style path after ssh:// (invalid, accepted by Argo CD)',
    ],
    [
      'github.com/org/repo',
      'ssh://git@github.com:22/org/repo.git',
      'ssh:// with a numeric port stays a port',
    ],
    [
      'gitlab.com/group/sub/project',
      'git+ssh://git@gitlab.com:group/sub/project',
      'scp-style path after git+ssh://',
    ],
    ['bitbucket.org/acme/platform', 'https://bitbucket.org/acme/platform', 'Bitbucket Cloud web URL'],
    [
      'bitbucket.org/acme/platform',
      'https://jdoe@bitbucket.org/acme/platform.git',
      'Bitbucket Cloud HTTPS clone URL',
    ],
    ['bitbucket.org/acme/platform', 'git@bitbucket.org:acme/platform.git', 'Bitbucket Cloud SSH clone URL'],
    [
      'bitbucket.org/acme/platform',
      'ssh://git@altssh.bitbucket.org:443/acme/platform.git',
      'Bitbucket Cloud altssh on 443',
    ],
    ['bbs.example/proj/repo', 'https://bbs.example/scm/proj/repo.git', 'Bitbucket Server HTTP clone URL'],
    ['bbs.example/proj/repo', 'ssh://git@bbs.example:7999/proj/repo.git', 'Bitbucket Server SSH clone URL'],
    [
      'bbs.example/proj/repo',
      'https://bbs.example/projects/PROJ/repos/repo/browse',
      'Bitbucket Server web URL',
    ],
    [
      'bbs.example/proj/repo',
      'https://bbs.example/projects/PROJ/repos/repo',
      'Bitbucket Server web URL without /browse',
    ],
    [
      'bbs.example/proj/repo',
      'https://bbs.example/bitbucket/scm/proj/repo.git',
      'Bitbucket Server under a context path',
    ],
    [
      'bbs.example/~jdoe/repo',
      'https://bbs.example/scm/~jdoe/repo.git',
      'Bitbucket Server personal repository clone',
    ],
    [
      'bbs.example/~jdoe/repo',
      'https://bbs.example/users/jdoe/repos/repo/browse',
      'Bitbucket Server personal repository web URL',
    ],
    [
      'dev.azure.com/org/project/_git/repo',
      'https://dev.azure.com/org/project/_git/repo',
      'Azure DevOps HTTPS URL',
    ],
    [
      'dev.azure.com/org/project/_git/repo',
      'https://org@dev.azure.com/org/project/_git/repo',
      'Azure DevOps clone URL with the organisation as user',
    ],
    [
      'dev.azure.com/org/project/_git/repo',
      'https://org.visualstudio.com/project/_git/repo',
      'legacy visualstudio.com URL',
    ],
    [
      'dev.azure.com/org/project/_git/repo',
      'https://org.visualstudio.com/DefaultCollection/project/_git/repo',
      'legacy URL with DefaultCollection',
    ],
    [
      'dev.azure.com/org/project/_git/repo',
      'git@ssh.dev.azure.com:v3/org/project/repo',
      'Azure DevOps SSH URL',
    ],
    [
      'dev.azure.com/org/project/_git/repo',
      'ssh://git@ssh.dev.azure.com/v3/org/project/repo',
      'Azure DevOps ssh:// URL',
    ],
    [
      'dev.azure.com/org/project/_git/repo',
      'org@vs-ssh.visualstudio.com:v3/org/project/repo',
      'legacy visualstudio.com SSH URL',
    ],
    [
      'dev.azure.com/org/repo/_git/repo',
      'https://dev.azure.com/org/_git/repo',
      'Azure DevOps URL of a repository named like its project',
    ],
    ['dev.azure.com/org/repo/_git/repo', 'git@ssh.dev.azure.com:v3/org/repo/repo', 'its SSH form'],
  ])('keys %s from %s (%s)', (key, url) => {
    expect(canonicalRepoKey(url)).toBe(key);
  });

  it.each([
    [
      'another Azure project',
      'https://dev.azure.com/org/other/_git/repo',
      'git@ssh.dev.azure.com:v3/org/project/repo',
    ],
    [
      'another Azure organisation',
      'https://dev.azure.com/org2/project/_git/repo',
      'https://org.visualstudio.com/project/_git/repo',
    ],
    [
      'another Bitbucket Server project',
      'https://bbs.example/scm/proj2/repo.git',
      'ssh://git@bbs.example:7999/proj/repo.git',
    ],
    [
      'another Bitbucket Server host',
      'https://bbs2.example/scm/proj/repo.git',
      'https://bbs.example/scm/proj/repo.git',
    ],
    [
      'a personal and a project repository',
      'https://bbs.example/scm/~proj/repo.git',
      'https://bbs.example/scm/proj/repo.git',
    ],
    [
      'a password in ssh:// user info is not a host',
      'ssh://ci:hunter2@git.example.com/o/r',
      'https://ci/o/r',
    ],
  ])('keeps %s apart', (_name, a, b) => {
    expect(canonicalRepoKey(a)).toBeDefined();
    expect(canonicalRepoKey(a)).not.toBe(canonicalRepoKey(b));
  });
});
