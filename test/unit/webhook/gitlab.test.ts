import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../lib/errors.js';
import type { NormalizedPush } from '../../../lib/webhook/delivery.js';
import { normalizeGitLabPush } from '../../../lib/webhook/gitlab.js';
import type { PushEvent } from '../../../lib/webhook/push-event.js';
import { gitlabFixture, meta } from './support.js';

function pushOf(result: NormalizedPush): PushEvent {
  if (result.kind !== 'push') throw new Error(`expected a push, got ${result.kind}`);
  return result.event;
}

const normalize = (payload: unknown) => pushOf(normalizeGitLabPush(payload, meta));

describe('normalizeGitLabPush', () => {
  it('reads a Push Hook: repository, ref, head commit, pusher and the union of changed files', () => {
    const event = normalize(gitlabFixture('push'));
    expect(event).toMatchObject({
      provider: 'gitlab',
      deliveryId: 'd-1',
      ref: 'refs/heads/main',
      refType: 'branch',
      refName: 'main',
      before: '3f1e9a2c4b7d8e0f1a2b3c4d5e6f708192a3b4c5',
      after: '9d8c7b6a5f4e3d2c1b0a99887766554433221100',
      touchedDefaultBranch: true,
      created: false,
      deleted: false,
      forced: false,
      author: { name: 'Ada Lovelace' },
      pusher: { name: 'Ada Lovelace', username: 'ada' },
      commitTitle: 'Bump api image to 2.4.1',
      commitUrl:
        'https://gitlab.example.com/platform/deploy/gitops/-/commit/9d8c7b6a5f4e3d2c1b0a99887766554433221100',
    });
    // A rename is the old path removed and the new one added; both are kept.
    expect(event.changedFiles).toEqual({
      known: true,
      files: [
        'apps/web-frontend/kustomization.yaml',
        'apps/web/kustomization.yaml',
        'apps/api/deployment.yaml',
      ],
    });
  });

  it('collects every repository URL form, the project id and the API base', () => {
    expect(normalize(gitlabFixture('push')).repo).toEqual({
      fullName: 'platform/deploy/gitops',
      webUrl: 'https://gitlab.example.com/platform/deploy/gitops',
      urls: [
        'https://gitlab.example.com/platform/deploy/gitops',
        'https://gitlab.example.com/platform/deploy/gitops.git',
        'git@gitlab.example.com:platform/deploy/gitops.git',
      ],
      defaultBranch: 'main',
      apiBaseUrl: 'https://gitlab.example.com/api/v4',
      projectId: 1207,
    });
  });

  it('keeps the relative URL root of an instance served under a path in the API base', () => {
    expect(normalize(gitlabFixture('system-hook-push')).repo).toMatchObject({
      apiBaseUrl: 'https://code.example.org/gitlab/api/v4',
      projectId: 88,
      urls: expect.arrayContaining(['git@code.example.org:infra/gitops.git']),
    });
  });

  it('reads a Tag Push Hook as a tag with unknown files, peeled to the tagged commit', () => {
    const event = normalize(gitlabFixture('tag-push'));
    expect(event).toMatchObject({
      refType: 'tag',
      refName: 'v1.4.0',
      created: true,
      touchedDefaultBranch: false,
      after: '9d8c7b6a5f4e3d2c1b0a99887766554433221100',
      commitTitle: 'Release 1.4.0',
      changedFiles: { known: false, reason: 'created' },
    });
  });

  it('reads a system hook push, whose commits carry no file lists, as unknown files', () => {
    const event = normalize(gitlabFixture('system-hook-push'));
    expect(event).toMatchObject({
      refName: 'main',
      author: { name: 'Ada Lovelace' },
      commitTitle: 'Scale workers to 6 replicas',
      changedFiles: { known: false, reason: 'truncated' },
    });
  });

  it('reads a 20-commit list below total_commits_count as truncated', () => {
    const payload = gitlabFixture('push-truncated');
    expect((payload.commits as unknown[]).length).toBe(20);
    expect(normalize(payload).changedFiles).toEqual({ known: false, reason: 'truncated' });
  });

  it('reads a full 20-commit list without total_commits_count as truncated', () => {
    const payload = gitlabFixture('push-truncated');
    delete payload.total_commits_count;
    expect(normalize(payload).changedFiles).toEqual({ known: false, reason: 'truncated' });
  });

  it('keeps a 20-commit list that total_commits_count says is complete', () => {
    const payload = gitlabFixture('push-truncated');
    payload.total_commits_count = 20;
    const files = normalize(payload).changedFiles;
    expect(files.known && files.files.length).toBe(20);
  });

  it('reads a new branch (before all zeros) as unknown files (created)', () => {
    const payload = gitlabFixture('push');
    payload.before = '0'.repeat(40);
    expect(normalize(payload)).toMatchObject({
      created: true,
      changedFiles: { known: false, reason: 'created' },
    });
  });

  it('reads a deletion (after all zeros) as deleted with nothing to refresh', () => {
    const payload = gitlabFixture('push');
    payload.after = '0'.repeat(40);
    payload.checkout_sha = null;
    payload.commits = [];
    payload.total_commits_count = 0;
    const event = normalize(payload);
    expect(event).toMatchObject({
      deleted: true,
      after: '0'.repeat(40),
      changedFiles: { known: true, files: [] },
    });
    expect(event.commitUrl).toBeUndefined();
  });

  it('reads a pushed empty commit as a known-empty list', () => {
    const payload = gitlabFixture('push');
    const commits = payload.commits as Record<string, unknown>[];
    payload.commits = [{ ...commits[1], added: [], modified: [], removed: [] }];
    payload.total_commits_count = 1;
    expect(normalize(payload).changedFiles).toEqual({ known: true, files: [] });
  });

  it('reads an empty list while the ref moved (a rewind) as unknown files', () => {
    const payload = gitlabFixture('push');
    payload.commits = [];
    payload.total_commits_count = 0;
    expect(normalize(payload).changedFiles).toEqual({ known: false, reason: 'no-commit-list' });
  });

  it('falls back to repository.homepage for payloads without a project object', () => {
    const payload = gitlabFixture('push');
    delete payload.project;
    expect(normalize(payload).repo).toMatchObject({
      webUrl: 'https://gitlab.example.com/platform/deploy/gitops',
      fullName: 'platform/deploy/gitops',
      projectId: 1207,
    });
  });

  it.each([
    ['without ref', (p: Record<string, unknown>) => delete p.ref, 'push payload is missing "ref"'],
    ['without after', (p: Record<string, unknown>) => delete p.after, 'push payload is missing "after"'],
    [
      'without project or repository',
      (p: Record<string, unknown>) => {
        delete p.project;
        delete p.repository;
      },
      'push payload is missing "project"',
    ],
    [
      'without project.web_url',
      (p: Record<string, unknown>) => {
        delete (p.project as Record<string, unknown>).web_url;
        delete p.repository;
      },
      'push payload is missing "project.web_url"',
    ],
  ])('refuses a body %s with a 400 naming the field', (_name, change, message) => {
    const payload = gitlabFixture('push');
    change(payload);
    const attempt = () => normalizeGitLabPush(payload, meta);
    expect(attempt).toThrow(BadRequestError);
    expect(attempt).toThrow(message);
  });
});
