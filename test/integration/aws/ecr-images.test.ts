import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalEcr, memoryEcrState, startLocalEcr } from '../../../infra/local/ecr-server.js';
import { createEcrImages } from '../../../lib/aws/ecr-images.js';
import { ecrRepositoryOf } from '../../../lib/registry/ecr-repository.js';

const ACCOUNT = '123456789012';
const HOST = `${ACCOUNT}.dkr.ecr.eu-west-1.amazonaws.com`;
const digest = (n: number) => `sha256:${n.toString(16).padStart(64, '0')}`;
const repo = (name: string) => {
  const r = ecrRepositoryOf(`${HOST}/${name}`);
  if (r === undefined) throw new Error(name);
  return r;
};
const later = () => Date.now() + 10_000;

describe('ECR DescribeImages against the local double', () => {
  let ecr: LocalEcr;
  const state = memoryEcrState();
  beforeAll(async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
    for (let i = 1; i <= 2_345; i++)
      state.push(ACCOUNT, 'charts/big', { digest: digest(i), tag: `1.0.${i}` });
    state.push(ACCOUNT, 'charts/web', {
      digest: digest(1),
      tag: '1.3.0',
      pushedAt: Date.parse('2026-12-01T00:00:00Z'),
    });
    state.push(ACCOUNT, 'charts/web', { digest: digest(2), tag: '1.4.0' });
    state.push(ACCOUNT, 'charts/web', { digest: digest(2), tag: 'stable' });
    // An untagged image (a tag moved off it): not asked for.
    state.push(ACCOUNT, 'charts/web', { digest: digest(3), tag: 'tmp' });
    state.push(ACCOUNT, 'charts/web', { digest: digest(4), tag: 'tmp' });
    ecr = await startLocalEcr({
      state,
      accountId: ACCOUNT,
      deniedRepositories: [`${ACCOUNT}/charts/secret`],
    });
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await ecr?.close();
  });

  it('reads the tagged images of a repository, with digests, tags and push times', async () => {
    const listing = await createEcrImages({ endpoint: ecr.endpoint }).describe(repo('charts/web'), later());
    expect(listing).toEqual({
      ok: true,
      truncated: false,
      images: [
        { digest: digest(1), tags: ['1.3.0'], pushedAt: Date.parse('2026-12-01T00:00:00Z') },
        { digest: digest(2), tags: ['1.4.0', 'stable'], pushedAt: expect.any(Number) },
        { digest: digest(4), tags: ['tmp'], pushedAt: expect.any(Number) },
      ],
    });
    const request = ecr.requests.at(-1);
    expect(request).toMatchObject({
      operation: 'DescribeImages',
      region: 'eu-west-1',
      body: {
        registryId: ACCOUNT,
        repositoryName: 'charts/web',
        filter: { tagStatus: 'TAGGED' },
        maxResults: 1000,
      },
    });
  });

  it('pages with nextToken at 1000 a page, and stops at its image cap (truncated)', async () => {
    const before = ecr.count('DescribeImages');
    const all = await createEcrImages({ endpoint: ecr.endpoint }).describe(repo('charts/big'), later());
    expect(all.ok && all.images.length).toBe(2_345);
    expect(all.ok && all.truncated).toBe(false);
    expect(ecr.count('DescribeImages') - before).toBe(3);
    const capped = await createEcrImages({
      endpoint: ecr.endpoint,
      pageSize: 500,
      maxImages: 1_000,
    }).describe(repo('charts/big'), later());
    expect(capped.ok && [capped.images.length, capped.truncated]).toEqual([1_000, true]);
  });

  it('answers a missing repository and a denied one as reasons, never as a throw', async () => {
    const images = createEcrImages({ endpoint: ecr.endpoint });
    expect(await images.describe(repo('charts/gone'), later())).toEqual({
      ok: false,
      reason: 'not-found',
      error: `ecr:DescribeImages on ${HOST}/charts/gone: RepositoryNotFoundException`,
    });
    expect(await images.describe(repo('charts/secret'), later())).toMatchObject({
      ok: false,
      reason: 'access-denied',
      error: expect.stringContaining(`arn:aws:ecr:eu-west-1:${ACCOUNT}:repository/charts/secret`),
    });
    expect(await images.describe(repo('charts/web'), Date.now() - 1)).toMatchObject({
      ok: true,
      truncated: true,
    });
  });

  it('enforces the real limits: maxResults 1..1000, the name and registry patterns, tagStatus, nextToken', async () => {
    const call = async (body: Record<string, unknown>) => {
      const { ECRClient, DescribeImagesCommand } = await import('@aws-sdk/client-ecr');
      const client = new ECRClient({ region: 'eu-west-1', endpoint: ecr.endpoint, maxAttempts: 1 });
      return client.send(new DescribeImagesCommand(body as never)).then(
        () => 'ok',
        (e: { name: string }) => e.name,
      );
    };
    expect(await call({ repositoryName: 'charts/web', registryId: ACCOUNT, maxResults: 1001 })).toBe(
      'ValidationException',
    );
    expect(await call({ repositoryName: 'charts/web', registryId: ACCOUNT, maxResults: 0 })).toBe(
      'ValidationException',
    );
    expect(await call({ repositoryName: 'Charts/Web', registryId: ACCOUNT })).toBe('ValidationException');
    expect(await call({ repositoryName: 'charts/web', registryId: '12' })).toBe('ValidationException');
    expect(await call({ repositoryName: 'charts/web', filter: { tagStatus: 'SOME' } })).toBe(
      'ValidationException',
    );
    expect(await call({ repositoryName: 'charts/web', registryId: ACCOUNT, nextToken: 'bogus' })).toBe(
      'InvalidParameterException',
    );
    expect(await call({ repositoryName: 'charts/web', registryId: ACCOUNT, maxResults: 1000 })).toBe('ok');
  });
});
