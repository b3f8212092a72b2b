import { describe, expect, it } from 'vitest';
import { observeApplicationSet, observeGitRepository } from '../../../lib/rollouts/observe.js';

const SHA = 'c'.repeat(40);

describe('observeApplicationSet', () => {
  it.each([
    {
      name: 'waits while the refresh annotation is still there',
      appSet: { metadata: { annotations: { 'argocd.argoproj.io/application-set-refresh': 'true' } } },
      state: 'refreshed',
    },
    { name: 'ends once the controller removed the annotation', appSet: { metadata: {} }, state: 'synced' },
    {
      name: 'fails when the controller reports ErrorOccurred',
      appSet: {
        metadata: {},
        status: { conditions: [{ type: 'ErrorOccurred', status: 'True', message: 'bad template' }] },
      },
      state: 'failed',
    },
  ])('$name', ({ appSet, state }) => {
    expect(observeApplicationSet(appSet).state).toBe(state);
  });
});

describe('observeGitRepository', () => {
  const repo = (revision: string, ready: Record<string, unknown>) => ({
    status: { artifact: { revision }, conditions: [{ type: 'Ready', ...ready }] },
  });
  it.each([
    {
      name: 'ends when the artifact names the commit and Ready is True',
      repo: repo(`main@sha1:${SHA}`, { status: 'True' }),
      state: 'synced',
    },
    {
      name: 'waits while the artifact is an older commit',
      repo: repo(`main@sha1:${'d'.repeat(40)}`, { status: 'True' }),
      state: 'refreshed',
    },
    {
      name: 'fails when the fetch of the commit is not Ready',
      repo: repo(`main@sha1:${SHA}`, { status: 'False', message: 'x' }),
      state: 'failed',
    },
    {
      name: 'fails when fetching failed before any artifact of the commit',
      repo: repo('main@sha1:old', { status: 'False', reason: 'GitOperationFailed', message: 'auth' }),
      state: 'failed',
    },
    { name: 'waits on a repository with no status', repo: {}, state: 'refreshed' },
  ])('$name', ({ repo: r, state }) => {
    expect(observeGitRepository(r, SHA).state).toBe(state);
  });
});
