import { describe, expect, it } from 'vitest';
import { feedbackRepository, sharedRead } from '../../../lib/feedback/repository.js';
import type { Rollout } from '../../../lib/rollouts/rollout-model.js';

describe('the repository a rollout reports back to', () => {
  const enabled = [{ url: 'https://github.com/Org/GitOps.git' }, { url: 'https://gitlab.com/org/other' }];
  it('is the enabled repository of the rollout, whatever form its URL takes', () => {
    expect(feedbackRepository(enabled, { repoUrl: 'https://github.com/org/gitops' })).toBe(enabled[0]);
    expect(feedbackRepository(enabled, { repoUrl: 'https://github.com/org/elsewhere' })).toBeUndefined();
  });
  it('is none for a registry rollout (no commit on a Git host)', () => {
    expect(feedbackRepository(enabled, { repoUrl: 'oci://ghcr.io/org/gitops' })).toBeUndefined();
  });
});

describe('a rollout read shared by the notices of one change', () => {
  const counting = () => {
    const state = { reads: 0 };
    const reader = {
      get: async (sha: string) => {
        state.reads += 1;
        return { sha, version: state.reads } as unknown as Rollout;
      },
      other: () => 'kept',
    };
    return { state, shared: sharedRead(reader) };
  };

  it('is one read for the gets in flight together while a change is noticed, and a fresh one after', async () => {
    const { state, shared } = counting();
    const seen = await shared.during('a', () =>
      Promise.all([shared.reader.get('a'), shared.reader.get('a')]),
    );
    expect(state.reads).toBe(1);
    expect(seen[0]).toBe(seen[1]);
    // The next change reads again: never an older rollout.
    const next = await shared.during('a', () => shared.reader.get('a'));
    expect(state.reads).toBe(2);
    expect(next).not.toBe(seen[0]);
    // Outside a change, and for another rollout, each get reads; nothing is read when no notice asks.
    await shared.reader.get('a');
    await shared.during('a', () => shared.reader.get('b'));
    await shared.during('a', async () => undefined);
    expect(state.reads).toBe(4);
    expect(shared.reader.other()).toBe('kept');
    // A get after the shared read settled (the deployments notice's second look) reads again.
    const twice = await shared.during('a', async () => {
      const first = await shared.reader.get('a');
      return [first, await shared.reader.get('a')];
    });
    expect(state.reads).toBe(6);
    expect(twice[0]).not.toBe(twice[1]);
  });

  it('fails each notice that asks when the shared read fails', async () => {
    const shared = sharedRead({
      get: async (_sha: string): Promise<Rollout | undefined> => {
        throw new Error('throttled');
      },
    });
    const results = await shared.during('b', () =>
      Promise.allSettled([shared.reader.get('b'), shared.reader.get('b')]),
    );
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
