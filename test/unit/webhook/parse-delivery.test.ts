import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../lib/errors.js';
import { parseDelivery, WebhookUnauthorizedError } from '../../../lib/webhook/parse-delivery.js';
import { githubPayloads, gitlabFixture, signGitHub } from './support.js';

const secrets = { github: ['gh-secret'], gitlab: ['gl-token'] };
const receivedAt = '2025-03-04T12:00:00.000Z';

function github(body: string | object, headers: Record<string, string> = {}, event = 'push') {
  const raw = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return {
    provider: 'github',
    body: raw,
    secrets,
    receivedAt,
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      'x-hub-signature-256': signGitHub(raw, 'gh-secret'),
      ...headers,
    },
  };
}

function gitlab(body: string | object, headers: Record<string, string> = {}, event = 'Push Hook') {
  return {
    provider: 'gitlab',
    body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
    secrets,
    receivedAt,
    headers: {
      'x-gitlab-event': event,
      'x-gitlab-token': 'gl-token',
      'x-gitlab-event-uuid': '13792a34-cac6-4fda-95a8-c58e00a3954e',
      ...headers,
    },
  };
}

function without<T extends { headers: Record<string, string> }>(input: T, name: string): T {
  const headers = { ...input.headers };
  delete headers[name];
  return { ...input, headers };
}

const ghPush = githubPayloads.branchPush([{ modified: ['apps/web/a.yaml'] }]);
const unsigned = without(github(ghPush), 'x-hub-signature-256');

describe('parseDelivery refuses what it cannot verify (401)', () => {
  it.each([
    ['a GitHub delivery without a signature', unsigned, 'signature-missing'],
    [
      'a GitHub delivery signed with another secret',
      github(ghPush, { 'x-hub-signature-256': signGitHub(JSON.stringify(ghPush), 'guess') }),
      'signature-mismatch',
    ],
    [
      'a GitHub delivery with only the SHA-1 signature',
      { ...unsigned, headers: { ...unsigned.headers, 'x-hub-signature': `sha1=${'a'.repeat(40)}` } },
      'signature-sha1-only',
    ],
    [
      'a GitHub delivery whose body was changed after signing',
      { ...github(ghPush), body: Buffer.from(JSON.stringify({ ...ghPush, ref: 'refs/heads/evil' })) },
      'signature-mismatch',
    ],
    [
      'a GitLab delivery without a token',
      without(gitlab(gitlabFixture('push')), 'x-gitlab-token'),
      'token-missing',
    ],
    [
      'a GitLab delivery with a wrong token',
      gitlab(gitlabFixture('push'), { 'x-gitlab-token': 'nope' }),
      'token-mismatch',
    ],
    [
      'a GitHub delivery while no GitHub secret is configured',
      { ...github(ghPush), secrets: { github: [], gitlab: ['gl-token'] } },
      'no-secret-configured',
    ],
    [
      'malformed JSON that is not signed, before it is parsed',
      without(github('{nope'), 'x-hub-signature-256'),
      'signature-missing',
    ],
    [
      'an unsigned delivery even with headers missing',
      without(unsigned, 'x-github-event'),
      'signature-missing',
    ],
  ])('refuses %s', async (_name, input, reason) => {
    const attempt = parseDelivery(input);
    await expect(attempt).rejects.toBeInstanceOf(WebhookUnauthorizedError);
    await expect(attempt).rejects.toMatchObject({ status: 401, reason });
  });
});

describe('parseDelivery refuses a verified delivery that is not what it claims (400)', () => {
  it.each([
    ['malformed JSON', github('{"ref": '), 'body is not valid JSON'],
    ['a JSON list', github('[1,2]'), 'body must be a JSON object'],
    ['a push without ref', github({ ...ghPush, ref: undefined }), 'push payload is missing "ref"'],
    ['a push without after', github({ ...ghPush, after: undefined }), 'push payload is missing "after"'],
    [
      'a push without repository',
      github({ ...ghPush, repository: undefined }),
      'push payload is missing "repository"',
    ],
    [
      'a GitHub delivery without X-GitHub-Event',
      without(github(ghPush), 'x-github-event'),
      'header x-github-event is required',
    ],
    [
      'a GitHub delivery without X-GitHub-Delivery',
      without(github(ghPush), 'x-github-delivery'),
      'header x-github-delivery is required',
    ],
    [
      'a delivery id that could not be a key',
      github(ghPush, { 'x-github-delivery': 'a#b' }),
      'header x-github-delivery is not a valid delivery id',
    ],
    [
      'a GitLab delivery without X-Gitlab-Event',
      without(gitlab(gitlabFixture('push')), 'x-gitlab-event'),
      'header x-gitlab-event is required',
    ],
    [
      'a Push Hook whose body is a merge request',
      gitlab(gitlabFixture('merge-request')),
      'body is not a Push Hook: object_kind is "merge_request"',
    ],
    [
      'a GitLab push without project',
      gitlab({ ...gitlabFixture('push'), project: undefined, repository: undefined }),
      'push payload is missing "project"',
    ],
    [
      'an unknown provider',
      { ...github(ghPush), provider: 'bitbucket-cloud' },
      'unknown provider "bitbucket-cloud"',
    ],
  ])('refuses %s', async (_name, input, message) => {
    const attempt = parseDelivery(input);
    await expect(attempt).rejects.toBeInstanceOf(BadRequestError);
    await expect(attempt).rejects.toThrow(message);
  });
});

describe('parseDelivery answers what it does not process', () => {
  it.each([
    ['a GitHub ping', github(githubPayloads.ping(), {}, 'ping'), { kind: 'ping', eventName: 'ping' }],
    [
      'a GitHub event it does not handle',
      github({ action: 'opened' }, {}, 'issues'),
      { kind: 'ignored', reason: 'event "issues" is not handled' },
    ],
    [
      'a GitHub branch deletion',
      github(githubPayloads.tagDeleted()),
      { kind: 'ignored', reason: 'ref deleted' },
    ],
    [
      'a GitLab deletion',
      gitlab({ ...gitlabFixture('push'), after: '0'.repeat(40), checkout_sha: null, commits: [] }),
      { kind: 'ignored', reason: 'ref deleted' },
    ],
    [
      'a GitLab event it does not handle',
      gitlab(gitlabFixture('merge-request'), {}, 'Merge Request Hook'),
      { kind: 'ignored', reason: 'event "Merge Request Hook" is not handled' },
    ],
    [
      'a system hook that is not a push',
      gitlab(gitlabFixture('system-hook-project-create'), {}, 'System Hook'),
      { kind: 'ignored', reason: 'system hook "project_create" is not handled' },
    ],
    [
      'a GitHub push to a ref that is neither branch nor tag',
      github({ ...ghPush, ref: 'refs/pull/1/head' }),
      { kind: 'ignored', reason: 'ref "refs/pull/1/head" is neither a branch nor a tag' },
    ],
  ])('answers %s', async (_name, input, expected) => {
    expect(await parseDelivery(input)).toMatchObject(expected);
  });
});

describe('parseDelivery accepts pushes', () => {
  it('reads a signed GitHub push with its delivery id and receive time', async () => {
    const parsed = await parseDelivery(github(ghPush));
    expect(parsed).toMatchObject({
      kind: 'push',
      deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      eventName: 'push',
      event: {
        provider: 'github',
        deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
        receivedAt,
        refName: 'master',
      },
    });
  });

  it('matches header names whatever their case', async () => {
    const input = github(ghPush);
    const headers = Object.fromEntries(Object.entries(input.headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(await parseDelivery({ ...input, headers })).toMatchObject({ kind: 'push' });
  });

  it('reads a GitHub push sent form-encoded, the other content type GitHub offers', async () => {
    const body = Buffer.from(new URLSearchParams({ payload: JSON.stringify(ghPush) }).toString());
    const input = github(ghPush, {
      'content-type': 'application/x-www-form-urlencoded',
      'x-hub-signature-256': signGitHub(body, 'gh-secret'),
    });
    expect(await parseDelivery({ ...input, body })).toMatchObject({ kind: 'push' });
  });

  it.each([
    ['Push Hook', gitlabFixture('push'), 'refs/heads/main'],
    ['Tag Push Hook', gitlabFixture('tag-push'), 'refs/tags/v1.4.0'],
    ['System Hook', gitlabFixture('system-hook-push'), 'refs/heads/main'],
    ['System Hook', { ...gitlabFixture('tag-push'), object_kind: undefined }, 'refs/tags/v1.4.0'],
  ])('reads a GitLab %s carrying a push', async (event, body, ref) => {
    expect(await parseDelivery(gitlab(body, {}, event))).toMatchObject({ kind: 'push', event: { ref } });
  });

  it('takes the GitLab delivery id from Idempotency-Key first, then X-Gitlab-Event-UUID', async () => {
    const withKey = gitlab(gitlabFixture('push'), { 'idempotency-key': 'b0c1f5a4-retry-stable' });
    expect(await parseDelivery(withKey)).toMatchObject({ deliveryId: 'b0c1f5a4-retry-stable' });
    expect(await parseDelivery(gitlab(gitlabFixture('push')))).toMatchObject({
      deliveryId: '13792a34-cac6-4fda-95a8-c58e00a3954e',
    });
  });

  it('derives a GitLab delivery id from the body when no id header is sent, so redeliveries match', async () => {
    const input = without(gitlab(gitlabFixture('push')), 'x-gitlab-event-uuid');
    const first = await parseDelivery(input);
    const again = await parseDelivery({ ...input, body: Buffer.from(input.body) });
    expect(first.deliveryId).toMatch(/^sha256-[0-9a-f]{64}$/);
    expect(again.deliveryId).toBe(first.deliveryId);
  });
});
