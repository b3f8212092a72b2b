import { describe, expect, it } from 'vitest';
import { unchangedSince } from '../../../lib/rollouts/preflight-manifests.js';
import { ZERO_SHA } from '../../../lib/webhook/push-event.js';
import { githubPushEvent } from '../../helpers/push-event.js';

// The preflight lets the Git reader answer a directory the push left alone from the commit before only when
// the push says in full what it changed since that commit.
describe('what the preflight tells the Git reader a push left alone', () => {
  const before = 'b'.repeat(40);
  const files = ['apps/web/deployment.yaml'];

  it('is the commit before and the changed files, when the list is complete', () => {
    const event = githubPushEvent({ before, changedFiles: { known: true, files } });
    expect(unchangedSince(event)).toEqual({ unchangedSince: { sha: before, files } });
  });

  it.each([
    [
      'the file list is unknown',
      { before, changedFiles: { known: false as const, reason: 'truncated' as const } },
    ],
    [
      'the ref was created (no commit before)',
      { before: ZERO_SHA, changedFiles: { known: true as const, files } },
    ],
    ['the ref was deleted', { before, deleted: true, changedFiles: { known: true as const, files } }],
    [
      'it is a registry push',
      {
        before,
        changedFiles: { known: true as const, files: [] },
        image: { host: 'ghcr.io', repository: 'acme/web', tag: '1.2.3', digest: `sha256:${'c'.repeat(64)}` },
      },
    ],
  ])('is nothing when %s', (_, over) => {
    expect(unchangedSince(githubPushEvent(over))).toEqual({});
  });
});
