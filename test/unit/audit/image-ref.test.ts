import { describe, expect, it } from 'vitest';
import { floatingTag } from '../../../lib/audit/image-ref.js';

describe('floatingTag', () => {
  it.each([
    ['a bare name has no tag', 'nginx', 'untagged'],
    ['an explicit :latest floats', 'nginx:latest', 'latest'],
    ['a registry port is not a tag', 'registry.local:5000/team/app', 'untagged'],
    ['a registry port with :latest still floats', 'registry.local:5000/team/app:latest', 'latest'],
    ['an empty tag after the colon is no tag', 'ghcr.io/org/app:', 'untagged'],
    ['a version tag is pinned', 'ghcr.io/org/app:1.4.2', undefined],
    ['a tag that merely contains latest is a tag', 'ghcr.io/org/app:latest-2026', undefined],
    ['tags are case-sensitive', 'ghcr.io/org/app:Latest', undefined],
    ['a digest pins an untagged image', 'ghcr.io/org/app@sha256:3b4c5d6e', undefined],
    ['a digest pins an image tagged latest', 'ghcr.io/org/app:latest@sha256:3b4c5d6e', undefined],
    ['surrounding whitespace is ignored', '  nginx:1.27  ', undefined],
  ])('%s', (_name, image, expected) => {
    expect(floatingTag(image)).toBe(expected);
  });
});
