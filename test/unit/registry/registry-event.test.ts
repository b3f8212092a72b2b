import { describe, expect, it } from 'vitest';
import { digestHex, ecrHost, imageKey } from '../../../lib/registry/registry-event.js';
import { imageDeliveryId, outOfScope } from '../../../lib/registry/registry-scope.js';

const image = {
  host: '123456789012.dkr.ecr.eu-west-1.amazonaws.com',
  repository: 'charts/web',
  tag: '1.4.0',
  digest: `sha256:${'ab'.repeat(32)}`,
  account: '123456789012',
  region: 'eu-west-1',
};

describe('the registry event model', () => {
  it.each([
    ['a commercial region', 'eu-west-1', '123456789012.dkr.ecr.eu-west-1.amazonaws.com'],
    ['a GovCloud region', 'us-gov-west-1', '123456789012.dkr.ecr.us-gov-west-1.amazonaws.com'],
    ['a China region', 'cn-north-1', '123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn'],
  ])('names the ECR host of %s', (_name, region, host) => {
    expect(ecrHost('123456789012', region)).toBe(host);
  });

  it('keys an image by host and path, and its rollout by the digest hex', () => {
    expect(imageKey(image)).toBe('123456789012.dkr.ecr.eu-west-1.amazonaws.com/charts/web');
    expect(digestHex(image.digest)).toBe('ab'.repeat(32));
  });

  it('de-duplicates on digest and tag: the same for one image, another for another tag', () => {
    expect(imageDeliveryId(image)).toBe(imageDeliveryId({ ...image }));
    expect(imageDeliveryId(image)).not.toBe(imageDeliveryId({ ...image, tag: 'stable' }));
    expect(imageDeliveryId(image)).toMatch(/^image-[0-9a-f]{64}-[0-9a-f]{16}$/);
  });

  it.each([
    ['no scope', {}, undefined],
    ['its own account and region', { account: '123456789012', region: 'eu-west-1' }, undefined],
    ['another account', { account: '210987654321' }, 'account'],
    ['another region', { region: 'us-east-1' }, 'region'],
  ] as const)('judges a push against %s', (_name, scope, reason) => {
    expect(outOfScope(image, scope)).toBe(reason);
  });
});
