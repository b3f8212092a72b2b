import { describe, expect, it } from 'vitest';
import { normalizeGhcrPackage } from '../../../lib/webhook/ghcr.js';
import { WEBHOOK_PROVIDERS } from '../../../lib/webhook/providers.js';

const DIGEST = `sha256:${'ab'.repeat(32)}`;
const META = { deliveryId: 'd-1', receivedAt: '2026-12-02T12:00:00.000Z' };
const published = (over: Record<string, unknown> = {}, version: Record<string, unknown> = {}) => ({
  action: 'published',
  package: {
    name: 'Charts/Web',
    namespace: 'Acme',
    package_type: 'CONTAINER',
    package_version: {
      version: DIGEST,
      container_metadata: { tag: { name: 'v1.2.0', digest: DIGEST } },
      ...version,
    },
    registry: { url: 'https://ghcr.io' },
    ...over,
  },
});

describe('a GHCR container version published (GitHub `package` event)', () => {
  it('is a registry push of ghcr.io/<owner>/<name> at its tag and digest, keyed by the digest', () => {
    const pushed = normalizeGhcrPackage(published(), META);
    expect(pushed.kind).toBe('push');
    if (pushed.kind !== 'push') return;
    expect(pushed.event.image).toEqual({
      host: 'ghcr.io',
      repository: 'acme/charts/web',
      tag: 'v1.2.0',
      digest: DIGEST,
    });
    expect(pushed.event.after).toBe('ab'.repeat(32));
    expect(pushed.event.repo.webUrl).toBe('oci://ghcr.io/acme/charts/web');
  });

  it('ignores a version published without a tag, an npm package and an update', () => {
    const untagged = normalizeGhcrPackage(
      published({}, { container_metadata: { tag: { name: '', digest: DIGEST } } }),
      META,
    );
    expect(untagged).toEqual({ kind: 'ignored', reason: expect.stringContaining('without a tag') });
    expect(normalizeGhcrPackage(published({ package_type: 'npm' }), META)).toMatchObject({ kind: 'ignored' });
    expect(normalizeGhcrPackage({ ...published(), action: 'updated' }, META)).toMatchObject({
      kind: 'ignored',
    });
  });

  it('refuses (400) a digest that is not sha256, a bad name, and a body that is not the event it is named as', () => {
    expect(() =>
      normalizeGhcrPackage(
        published({}, { version: 'latest', container_metadata: { tag: { name: 'v1' } } }),
        META,
      ),
    ).toThrow(/sha256 digest/);
    expect(() => normalizeGhcrPackage(published({ name: 'a b' }), META)).toThrow(/package name/);
    const check = WEBHOOK_PROVIDERS.github.events.checkPush;
    expect(() => check?.('push', published())).toThrow(/not a GitHub push event/);
    expect(() => check?.('package', { ref: 'refs/heads/main' })).toThrow(/not a GitHub package event/);
    expect(check?.('package', published())).toBeUndefined();
  });
});
