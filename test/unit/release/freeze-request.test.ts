import { describe, expect, it } from 'vitest';
import { freezeFromRequest } from '../../../lib/release/freeze-request.js';

const NOW = new Date('2026-12-01T12:00:00.000Z');
const fleet = {
  clusters: ['staging-1', 'prod-eu', 'prod-us'],
  repositories: [
    'https://github.com/org/gitops.git',
    'git@gitlab.example.com:team/apps.git',
    'https://gitlab.example.com/other/apps',
  ],
};
const parse = (body: unknown) => freezeFromRequest(body, { fleet, now: NOW, by: 'local', id: 'f1' });

describe('a freeze request', () => {
  it('stores the repository as its canonical key, from owner/name or any URL form', () => {
    expect(parse({ repo: 'org/gitops', reason: 'r' }).repo).toBe('github.com/org/gitops');
    expect(parse({ repo: 'team/apps', reason: 'r' }).repo).toBe('gitlab.example.com/team/apps');
    expect(parse({ repo: 'ssh://git@github.com/Org/Gitops.git', reason: 'r' }).repo).toBe(
      'github.com/org/gitops',
    );
    expect(parse({ repo: 'https://bitbucket.org/x/y', reason: 'r' }).repo).toBe('bitbucket.org/x/y');
  });

  it('names the problem with an owner/name the fleet does not know or knows twice', () => {
    expect(() => parse({ repo: 'org/unknown', reason: 'r' })).toThrow(/no repository of the fleet/);
    const twice = { ...fleet, repositories: ['https://github.com/a/b', 'https://gitlab.com/a/b'] };
    expect(() =>
      freezeFromRequest({ repo: 'a/b', reason: 'r' }, { fleet: twice, now: NOW, by: 'x' }),
    ).toThrow(/ambiguous: github.com\/a\/b, gitlab.com\/a\/b/);
  });

  it('refuses a repository that is not one, without echoing it', () => {
    for (const repo of ['oci://user:s3cret@registry/x', 'oci://registry', 'oci://registry/UP case/x']) {
      const error = (() => {
        try {
          parse({ repo, reason: 'r' });
        } catch (caught) {
          return caught as Error;
        }
        return undefined;
      })();
      expect(error?.message).toBe(
        'repo must be owner/name, a Git repository URL or an image repository oci://<host>/<path>',
      );
      expect(error?.message).not.toContain('s3cret');
    }
  });

  it('keys an image repository host/path, lower-case, as its registry pushes are (a freeze of it holds them)', () => {
    expect(
      parse({ repo: 'oci://123456789012.dkr.ecr.eu-west-1.amazonaws.com/Charts/Web/', reason: 'r' }).repo,
    ).toBe('123456789012.dkr.ecr.eu-west-1.amazonaws.com/charts/web');
    expect(parse({ repo: 'OCI://harbor.local:8443/library/app', reason: 'r' }).repo).toBe(
      'harbor.local:8443/library/app',
    );
    // What the CLI sends for --repo oci://host/path (repoFilterOf): the same key.
    expect(parse({ repo: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/charts/web', reason: 'r' }).repo).toBe(
      '123456789012.dkr.ecr.eu-west-1.amazonaws.com/charts/web',
    );
  });

  it('keeps a cluster name or glob that selects a fleet cluster, and refuses one that selects none', () => {
    expect(parse({ cluster: 'prod-*', reason: 'r' }).cluster).toBe('prod-*');
    expect(parse({ cluster: 'staging-1', reason: 'r' }).cluster).toBe('staging-1');
    expect(() => parse({ cluster: 'dev-*', reason: 'r' })).toThrow(
      'cluster dev-* selects no cluster of the fleet',
    );
    expect(() => parse({ cluster: 'prod eu', reason: 'r' })).toThrow(/fleet cluster name or a glob/);
  });

  it('requires a reason and an until in the future, as an ISO time', () => {
    expect(() => parse({})).toThrow(/reason is required/);
    expect(() => parse({ reason: '  ' })).toThrow(/reason is required/);
    expect(() => parse({ reason: 'r', until: 'tomorrow' })).toThrow(/ISO 8601/);
    expect(() => parse({ reason: 'r', until: '2026-12-01T11:00:00Z' })).toThrow(
      'until must be in the future',
    );
    expect(parse({ reason: 'r', until: '2026-12-24T18:00:00+01:00' }).until).toBe('2026-12-24T17:00:00.000Z');
  });

  it('refuses unknown fields and bodies that are not objects', () => {
    expect(() => parse({ reason: 'r', clusters: ['x'] })).toThrow('unknown field clusters');
    expect(() => parse([])).toThrow(/JSON object/);
    expect(() => parse({ reason: 5 })).toThrow(/reason is required/);
  });

  it('records who froze and when; neither repo nor cluster freezes the whole fleet', () => {
    expect(parse({ reason: ' release weekend ' })).toEqual({
      id: 'f1',
      reason: 'release weekend',
      by: 'local',
      at: NOW.toISOString(),
    });
  });
});
