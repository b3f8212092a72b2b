import { describe, expect, it } from 'vitest';
import {
  canonicalRepoUrl,
  createRepoAllowList,
  fetchableRepoUrl,
  RepoNotAllowedError,
  RepoUrlError,
} from '../../../lib/git/repo-url.js';

describe('canonicalRepoUrl', () => {
  it.each([
    ['lower-cases the host', 'https://GitHub.COM/org/gitops', 'https://github.com/org/gitops'],
    ['strips one .git suffix', 'https://github.com/org/gitops.git', 'https://github.com/org/gitops'],
    ['strips a trailing slash', 'https://github.com/org/gitops/', 'https://github.com/org/gitops'],
    [
      'strips a trailing slash after .git',
      'https://github.com/org/gitops.git/',
      'https://github.com/org/gitops',
    ],
    [
      'drops user info so a token never reaches the key',
      'https://x:tok@github.com/org/gitops',
      'https://github.com/org/gitops',
    ],
    ['keeps a non-default port', 'http://127.0.0.1:8080/demo.git', 'http://127.0.0.1:8080/demo'],
    ['keeps the path case', 'https://github.com/Org/GitOps', 'https://github.com/Org/GitOps'],
  ])('%s', (_name, input, expected) => {
    expect(canonicalRepoUrl(input)).toBe(expected);
  });

  it.each([
    ['an scp-style SSH URL', 'git@github.com:org/gitops.git'],
    ['an ssh:// URL', 'ssh://git@github.com/org/gitops'],
    ['text that is no URL', 'not a url'],
  ])('has no key for %s, which smart HTTP cannot read', (_name, input) => {
    expect(canonicalRepoUrl(input)).toBeUndefined();
  });
});

describe('the repository allow-list', () => {
  const allowList = createRepoAllowList(['https://github.com/org/gitops', 'http://127.0.0.1:9/demo.git']);

  it.each([
    ['the listed URL', 'https://github.com/org/gitops', true],
    ['the listed URL with .git and another host case', 'https://GITHUB.com/org/gitops.git', true],
    ['a loopback URL listed with .git, asked without', 'http://127.0.0.1:9/demo', true],
    ['a different repository with the same prefix', 'https://github.com/org/gitops-2', false],
    ['the same path on another host', 'https://gitlab.com/org/gitops', false],
    ['the listed URL over plain http', 'http://github.com/org/gitops', false],
  ])('answers for %s', (_name, url, allowed) => {
    expect(allowList.allows(url)).toBe(allowed);
  });

  it('refuses an unlisted URL with an error that names it without its credentials', () => {
    let caught: unknown;
    try {
      allowList.check('https://bot:ghp_secret@github.com/evil/repo');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RepoNotAllowedError);
    expect((caught as Error).message).toContain('https://github.com/evil/repo');
    expect((caught as Error).message).not.toContain('ghp_secret');
  });

  it('refuses an SSH URL as unreadable rather than unlisted', () => {
    expect(() => allowList.check('git@github.com:org/gitops.git')).toThrow(RepoUrlError);
  });
});

describe('fetchableRepoUrl', () => {
  it('keeps the listed path (with .git) but drops credentials, query and fragment', () => {
    expect(fetchableRepoUrl('https://u:p@host.example/org/repo.git/?x=1#y')).toBe(
      'https://host.example/org/repo.git',
    );
  });
});
