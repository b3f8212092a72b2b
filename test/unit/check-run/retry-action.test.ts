import { describe, expect, it } from 'vitest';
import { checkRunActions } from '../../../lib/check-run/retry-action.js';
import type { RepositoryConfig } from '../../../lib/fleet/fleet-config.js';
import type { ControlOutcome } from '../../../lib/release/ports.js';

const SHA = 'a'.repeat(40);
const pressed = (url: string) => ({
  identifier: 'retry' as const,
  sha: SHA,
  repo: { fullName: 'org/gitops', urls: [url] },
  by: 'github:octocat',
});

function actions(repositories: RepositoryConfig[], outcome: ControlOutcome) {
  const calls: unknown[][] = [];
  const run = checkRunActions({
    control: {
      retry: async (...args) => {
        calls.push(args);
        return outcome;
      },
    },
    repositories: async () => repositories,
  });
  return { run, calls };
}

describe('the Retry failed button of a check run', () => {
  it('retries every failed app of the commit, as POST /rollouts/{sha}/retry does, by who pressed it', async () => {
    const { run, calls } = actions([{ url: 'https://github.com/org/gitops.git', checkRun: true }], {
      kind: 'ok',
      detail: '2 apps',
    });
    expect(await run(pressed('https://github.com/Org/gitops'))).toEqual({ kind: 'done', detail: '2 apps' });
    expect(calls).toEqual([[SHA, 'github:octocat']]);
  });

  it.each([
    {
      name: 'a repository the fleet lists without checkRun',
      repositories: [{ url: 'https://github.com/org/gitops' }],
      outcome: { kind: 'ok' } as ControlOutcome,
      reason: 'the fleet has no checkRun repository by that name',
      retried: false,
    },
    {
      name: 'a commit without a rollout',
      repositories: [{ url: 'https://github.com/org/gitops', checkRun: true }],
      outcome: { kind: 'not-found' } as ControlOutcome,
      reason: 'no rollout for this commit',
      retried: true,
    },
    {
      name: 'a rollout with nothing to retry',
      repositories: [{ url: 'https://github.com/org/gitops', checkRun: true }],
      outcome: { kind: 'conflict', error: 'nothing to retry' } as ControlOutcome,
      reason: 'nothing to retry',
      retried: true,
    },
  ])('does nothing for $name, saying why', async ({ repositories, outcome, reason, retried }) => {
    const { run, calls } = actions(repositories, outcome);
    expect(await run(pressed('https://github.com/org/gitops'))).toEqual({ kind: 'ignored', reason });
    expect(calls.length > 0).toBe(retried);
  });
});
