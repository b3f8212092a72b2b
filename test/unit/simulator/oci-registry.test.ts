import { describe, expect, it } from 'vitest';
import {
  createOciRegistry,
  registryKindOf,
  resolveSource,
  withOciRegistry,
} from '../../../infra/simulator/oci-registry.js';
import { ecrImagesOf } from '../../../infra/simulator/oci-registry-ecr.js';

const HOST = '123456789012.dkr.ecr.eu-west-1.amazonaws.com';
const WEB = `${HOST}/charts/web`;
const digest = (c: string) => `sha256:${c.repeat(64)}`;
const at = (minute: number) => new Date(Date.UTC(2026, 11, 2, 12, minute));

function registry() {
  return createOciRegistry([
    { repository: WEB, tag: '1.3.0', digest: digest('a'), pushedAt: at(0) },
    { repository: WEB, tag: '1.4.0', digest: digest('b'), pushedAt: at(1) },
    { repository: WEB, tag: '2.0.0', digest: digest('c'), pushedAt: at(2) },
    { repository: WEB, tag: 'latest', digest: digest('c'), pushedAt: at(2) },
  ]);
}

describe('the simulator OCI registry state', () => {
  it('lists a repository newest push first, each manifest with its tags and push time', () => {
    expect(registry().images(`oci://${WEB.toUpperCase()}/`)).toEqual([
      { digest: digest('c'), tags: ['2.0.0', 'latest'], pushedAt: at(2) },
      { digest: digest('b'), tags: ['1.4.0'], pushedAt: at(1) },
      { digest: digest('a'), tags: ['1.3.0'], pushedAt: at(0) },
    ]);
    expect(registry().images(`${HOST}/charts/none`)).toBeUndefined();
    expect(registry().repositories()).toEqual([WEB]);
  });

  it('moves a tag pushed again to the new manifest, and gives a push without a digest a fresh one', () => {
    const r = registry();
    const pushed = r.push({ repository: WEB, tag: 'latest', chartVersion: '2.0.1', pushedAt: at(5) });
    expect(pushed.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(pushed.digest).not.toBe(digest('c'));
    const images = r.images(WEB) ?? [];
    expect(images[0]).toEqual({
      digest: pushed.digest,
      tags: ['latest'],
      pushedAt: at(5),
      chartVersion: '2.0.1',
    });
    expect(images.find((i) => i.digest === digest('c'))?.tags).toEqual(['2.0.0']);
    // A second push of the same tag gets yet another manifest.
    expect(r.push({ repository: WEB, tag: 'latest' }).digest).not.toBe(pushed.digest);
    expect(() => r.push({ repository: WEB, tag: 'x', digest: 'sha256:nope' })).toThrow('not a sha256 digest');
  });
});

describe('resolving a registry source as Argo CD does', () => {
  it('an exact tag: the digest it points at (OCI), the chart version (Helm OCI)', () => {
    expect(resolveSource(registry(), 'oci', `oci://${WEB}`, '1.4.0')).toEqual({
      found: true,
      revision: digest('b'),
      digest: digest('b'),
      tag: '1.4.0',
    });
    expect(resolveSource(registry(), 'oci', `oci://${WEB}`, 'latest')).toMatchObject({
      revision: digest('c'),
    });
    expect(resolveSource(registry(), 'helm', WEB, '1.4.0')).toMatchObject({
      revision: '1.4.0',
      digest: digest('b'),
    });
  });

  it('a semver constraint: the highest version it accepts; tags that are not versions never match', () => {
    expect(resolveSource(registry(), 'oci', `oci://${WEB}`, '^1.0.0')).toMatchObject({
      revision: digest('b'),
      tag: '1.4.0',
    });
    expect(resolveSource(registry(), 'oci', `oci://${WEB}`, '>=1.0.0 <1.4.0')).toMatchObject({
      tag: '1.3.0',
    });
    expect(resolveSource(registry(), 'helm', WEB, '*')).toMatchObject({ revision: '2.0.0' });
    const r = registry();
    r.push({ repository: WEB, tag: 'v9-nightly', digest: digest('d') });
    expect(resolveSource(r, 'helm', WEB, '>=2.0.0')).toMatchObject({ revision: '2.0.0' });
  });

  it('a digest: itself when the repository holds it (OCI); never for Helm', () => {
    expect(resolveSource(registry(), 'oci', `oci://${WEB}`, digest('a'))).toEqual({
      found: true,
      revision: digest('a'),
      digest: digest('a'),
    });
    expect(resolveSource(registry(), 'oci', `oci://${WEB}`, digest('e'))).toEqual({
      found: false,
      reason: `manifest ${digest('e')} not found`,
    });
    expect(resolveSource(registry(), 'helm', WEB, digest('a'))).toMatchObject({ found: false });
  });

  it('nothing that matches: a reason, no revision', () => {
    expect(resolveSource(registry(), 'oci', `oci://${WEB}`, '^3.0.0')).toEqual({
      found: false,
      reason: "no version found for constraint '^3.0.0'",
    });
    expect(resolveSource(registry(), 'oci', `oci://${WEB}`, 'stable')).toEqual({
      found: false,
      reason: 'tag stable not found',
    });
    expect(resolveSource(registry(), 'oci', `oci://${HOST}/charts/api`, '1.0.0')).toEqual({
      found: false,
      reason: `repository ${HOST}/charts/api not found`,
    });
  });

  it('answers registry URLs from the registry and leaves Git URLs to the Git resolver', async () => {
    const git = (url: string, revision: string) => `git:${url}@${revision}`;
    const resolve = withOciRegistry(registry(), git);
    expect(await resolve(`oci://${WEB}`, '^1.0.0')).toBe(digest('b'));
    expect(await resolve(WEB, '1.x')).toBe('1.4.0');
    expect(await resolve(`oci://${WEB}`, '^5.0.0')).toBeUndefined();
    expect(await resolve('https://github.com/acme/gitops', 'main')).toBe(
      'git:https://github.com/acme/gitops@main',
    );
    expect(await resolve('git@github.com:acme/gitops.git', 'main')).toBe(
      'git:git@github.com:acme/gitops.git@main',
    );
    // A scheme-less URL the registry does not hold stays with the Git resolver.
    expect(await resolve('github.com/acme/gitops', 'main')).toBe('git:github.com/acme/gitops@main');
    expect([registryKindOf(`oci://${WEB}`), registryKindOf(WEB), registryKindOf('https://x/y')]).toEqual([
      'oci',
      'helm',
      undefined,
    ]);
  });
});

describe('the registry as ECR DescribeImages lists it', () => {
  it("lists an account's repository by name, with digest, tags, push time and chart media type", () => {
    const r = registry();
    r.push({ repository: WEB, tag: '2.1.0', digest: digest('f'), chartVersion: '2.1.0', pushedAt: at(9) });
    const ecr = ecrImagesOf(r);
    const images = ecr.images('123456789012', 'charts/web') ?? [];
    expect(images).toHaveLength(4);
    expect(images[0]).toEqual({
      registryId: '123456789012',
      repositoryName: 'charts/web',
      imageDigest: digest('f'),
      imageTags: ['2.1.0'],
      imagePushedAt: at(9).getTime(),
      imageManifestMediaType: 'application/vnd.oci.image.manifest.v1+json',
      artifactMediaType: 'application/vnd.cncf.helm.config.v1+json',
    });
    expect(ecr.images('210987654321', 'charts/web')).toBeUndefined();
    expect(ecr.images('123456789012', 'charts/api')).toBeUndefined();
    expect(ecrImagesOf(r, 'us-east-1').images('123456789012', 'charts/web')).toBeUndefined();
  });
});
