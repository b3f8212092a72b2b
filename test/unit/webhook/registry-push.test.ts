import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../lib/errors.js';
import {
  registryPush,
  requireDigest,
  requireImageTag,
  requireRepositoryPath,
} from '../../../lib/webhook/registry-push.js';

const DIGEST = `sha256:${'ab'.repeat(32)}`;
const meta = { deliveryId: 'd-1', receivedAt: '2026-01-01T00:00:00Z' };

describe('the registry routes’ shared push shape', () => {
  it('authors a push by who pushed it when the registry names them, else by the registry', () => {
    const image = { host: 'ghcr.io', repository: 'acme/api', tag: 'v1', digest: DIGEST };
    const named = registryPush('github', image, meta, 'octocat');
    const unnamed = registryPush('harbor', image, meta);
    expect(named.kind === 'push' && named.event.author).toEqual({ name: 'octocat' });
    expect(unnamed.kind === 'push' && unnamed.event.author).toEqual({ name: 'harbor' });
    expect(named.kind === 'push' && named.event.after).toBe('ab'.repeat(32));
  });

  it('refuses a repository path, digest or tag that is not one, naming the field', () => {
    expect(requireRepositoryPath('acme/api', 'f', 'a path')).toBe('acme/api');
    expect(() => requireRepositoryPath('a'.repeat(257), 'f', 'a path')).toThrow(BadRequestError);
    expect(() => requireRepositoryPath('Acme/API', 'repo.name', 'a path')).toThrow(/repo\.name/);
    expect(requireDigest(DIGEST.toUpperCase().replace('SHA256', 'sha256'), 'd')).toBe(DIGEST);
    expect(() => requireDigest('sha1:abc', 'detail.digest')).toThrow(/detail\.digest/);
    expect(requireImageTag('v1.2.3', 't')).toBe('v1.2.3');
    expect(() => requireImageTag(7, 'detail.image-tag')).toThrow(/detail\.image-tag/);
    expect(() => requireImageTag('-bad', 't')).toThrow(BadRequestError);
  });
});
