import { describe, expect, it } from 'vitest';
import { checkHarborPush, normalizeHarborPush } from '../../../lib/webhook/harbor.js';

const D1 = `sha256:${'1a'.repeat(32)}`;
const D2 = `sha256:${'2b'.repeat(32)}`;
const META = { deliveryId: 'harbor-body-hash', receivedAt: '2026-12-02T12:00:00.000Z' };
const event = (resources: unknown[]) => ({
  type: 'PUSH_ARTIFACT',
  operator: 'admin',
  event_data: { resources, repository: { repo_full_name: 'Library/Web' } },
});
const artifact = (digest: string, tag: string) => ({
  digest,
  tag,
  resource_url: `Harbor.Example.com:8443/library/web:${tag}`,
});

describe("Harbor's PUSH_ARTIFACT", () => {
  it('is one registry push per tagged artifact, on the host its resource_url names', () => {
    const pushes = normalizeHarborPush(event([artifact(D1, 'v1'), artifact(D2, 'v2')]), META);
    expect(Array.isArray(pushes)).toBe(true);
    const images = (pushes as { kind: string; event: { image?: unknown; deliveryId: string } }[]).map((p) => [
      p.event.image,
      p.event.deliveryId,
    ]);
    expect(images).toEqual([
      [
        { host: 'harbor.example.com:8443', repository: 'library/web', tag: 'v1', digest: D1 },
        'harbor-body-hash#0',
      ],
      [
        { host: 'harbor.example.com:8443', repository: 'library/web', tag: 'v2', digest: D2 },
        'harbor-body-hash#1',
      ],
    ]);
  });

  it('ignores artifacts pushed without a tag, and other Harbor events', () => {
    expect(normalizeHarborPush(event([artifact(D1, '')]), META)).toMatchObject({ kind: 'ignored' });
    expect(checkHarborPush('DELETE_ARTIFACT', event([]))).toMatch(/not handled/);
    expect(checkHarborPush('PUSH_ARTIFACT', event([]))).toBeUndefined();
  });

  it('refuses (400) a bad digest, a host-less resource_url, no artifacts, and more than 100', () => {
    expect(() => normalizeHarborPush(event([artifact('sha1:abc', 'v1')]), META)).toThrow(/sha256 digest/);
    expect(() => normalizeHarborPush(event([{ digest: D1, tag: 'v1', resource_url: '' }]), META)).toThrow(
      /registry host/,
    );
    expect(() => normalizeHarborPush(event([]), META)).toThrow(/list of pushed artifacts/);
    expect(() =>
      normalizeHarborPush(event(Array.from({ length: 101 }, () => artifact(D1, 'v1'))), META),
    ).toThrow(/more than 100/);
  });
});
