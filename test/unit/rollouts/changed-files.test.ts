import { describe, expect, it } from 'vitest';
import type { CompareRequest, CompareResult } from '../../../lib/git/compare-model.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { changedFilesResolver } from '../../../lib/rollouts/changed-files.js';
import type { ChangedFiles, PushEvent } from '../../../lib/webhook/push-event.js';
import { githubPushEvent } from '../../helpers/push-event.js';

function event(changedFiles: ChangedFiles, overrides: Partial<PushEvent> = {}): PushEvent {
  return githubPushEvent({
    deliveryId: 'd',
    repo: {
      fullName: 'org/gitops',
      webUrl: 'https://github.com/org/gitops',
      urls: ['git@github.com:org/gitops.git'],
    },
    forced: true,
    author: { name: 'x' },
    commitTitle: 't',
    changedFiles,
    receivedAt: '2026-11-30T00:00:00Z',
    ...overrides,
  });
}

function resolver(
  answer: CompareResult,
  repositories = [{ url: 'https://github.com/org/gitops', token: 'ghp_x' }],
) {
  const calls: CompareRequest[] = [];
  const resolve = changedFilesResolver({
    repositories,
    credentials: async (repo) => (repo.token === undefined ? undefined : { token: repo.token }),
    compare: async (request) => {
      calls.push(request);
      return answer;
    },
    logger: createMemoryLogger(),
  });
  return { resolve, calls };
}

const UNKNOWN: ChangedFiles = { known: false, reason: 'forced' };

describe('changedFilesResolver', () => {
  it('keeps a complete list from the payload without asking the provider', async () => {
    const { resolve, calls } = resolver({ known: true, files: ['x'] });
    expect(await resolve(event({ known: true, files: ['apps/a.yaml'] }))).toEqual({
      known: true,
      files: ['apps/a.yaml'],
    });
    expect(calls).toEqual([]);
  });

  it('asks the compare API of a listed repository, with its token, for an unknown list', async () => {
    const { resolve, calls } = resolver({ known: true, files: ['apps/web/x.yaml'] });
    expect(await resolve(event(UNKNOWN))).toEqual({ known: true, files: ['apps/web/x.yaml'] });
    expect(calls).toEqual([
      expect.objectContaining({
        provider: 'github',
        repository: 'org/gitops',
        before: 'a'.repeat(40),
        token: 'ghp_x',
      }),
    ]);
  });

  it('fails open (stays unknown) when the compare API cannot tell', async () => {
    const { resolve } = resolver({ known: false, reason: 'compare-failed', detail: 'http 404' });
    expect(await resolve(event(UNKNOWN))).toEqual(UNKNOWN);
  });

  it('never asks about a repository the fleet file does not list', async () => {
    const { resolve, calls } = resolver({ known: true, files: [] }, [
      { url: 'https://github.com/org/other', token: 't' },
    ]);
    expect(await resolve(event(UNKNOWN))).toEqual(UNKNOWN);
    expect(calls).toEqual([]);
  });

  it('does not compare from an all-zero before (a new branch or tag)', async () => {
    const { resolve, calls } = resolver({ known: true, files: [] });
    expect(await resolve(event({ known: false, reason: 'created' }, { before: '0'.repeat(40) }))).toEqual({
      known: false,
      reason: 'created',
    });
    expect(calls).toEqual([]);
  });
});
