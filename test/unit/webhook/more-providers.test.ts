import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../lib/errors.js';
import { parseDelivery, WebhookUnauthorizedError } from '../../../lib/webhook/parse-delivery.js';
import { ALL_SECRETS, basicAuth, hmacHex, hostFixture, SECRETS, type SignedDelivery, sign } from './hosts.js';

const receivedAt = '2025-03-04T12:00:00.000Z';
const parse = (delivery: SignedDelivery, secrets: Record<string, string[]> = ALL_SECRETS) =>
  parseDelivery({
    provider: delivery.provider,
    headers: delivery.headers,
    body: Buffer.from(delivery.body),
    secrets: { github: [], gitlab: [], ...secrets },
    receivedAt,
  });
const body = (
  name: Parameters<typeof hostFixture>[0],
  mutate: (p: Record<string, unknown>) => void = () => {},
) => {
  const payload = hostFixture(name);
  mutate(payload);
  return JSON.stringify(payload);
};
const generic = JSON.stringify({ repo: 'https://git.example.com/o/r', ref: 'main', after: 'c'.repeat(40) });

/** A valid signed push of every provider. */
const pushes: [string, SignedDelivery][] = [
  ['Bitbucket Cloud', sign.bitbucket(body('bitbucket-repo-push'))],
  ['Bitbucket Server', sign.bitbucketServer(body('bitbucket-server-refs-changed'))],
  ['Azure DevOps', sign.azure(body('azuredevops-git-push'))],
  ['Gitea', sign.gitea(body('gitea-push', (p) => (p.before = 'a'.repeat(40))))],
  ['Gogs', sign.gogs(body('gogs-push'))],
  ['generic', sign.generic(generic, 'ci-run-42')],
];

describe('parseDelivery for Bitbucket, Bitbucket Server, Azure DevOps, Gitea/Gogs and generic', () => {
  it.each(pushes)('accepts a signed %s push', async (_name, delivery) => {
    await expect(parse(delivery)).resolves.toMatchObject({ kind: 'push' });
  });

  it.each([
    [
      'Bitbucket Cloud X-Request-UUID',
      sign.bitbucket(body('bitbucket-repo-push'), '{9d3f6a1e-0b7c-4c2d-8e5f-1a2b3c4d5e6f}'),
      '9d3f6a1e-0b7c-4c2d-8e5f-1a2b3c4d5e6f',
    ],
    [
      'Bitbucket Server X-Request-Id',
      sign.bitbucketServer(body('bitbucket-server-refs-changed'), 'e8a1b2c3-req'),
      'e8a1b2c3-req',
    ],
    [
      'Azure DevOps body id',
      sign.azure(body('azuredevops-git-push')),
      '09b0b950-47fa-4f45-8b65-5a22686314f8',
    ],
    ['Gitea X-Gitea-Delivery', sign.gitea(body('gitea-push'), 'f0e1d2c3-gitea'), 'f0e1d2c3-gitea'],
    ['Gogs X-Gogs-Delivery', sign.gogs(body('gogs-push'), 'gogs-77'), 'gogs-77'],
    ['generic X-Delivery-Id', sign.generic(generic, 'ci-run-42'), 'ci-run-42'],
  ])('de-duplicates on the %s', async (_name, delivery, id) => {
    await expect(parse(delivery)).resolves.toMatchObject({ deliveryId: id });
  });

  it('de-duplicates a generic push without X-Delivery-Id on the hash of its body', async () => {
    const first = await parse(sign.generic(generic));
    const again = await parse(sign.generic(generic));
    expect(first.deliveryId).toMatch(/^sha256-[0-9a-f]{64}$/);
    expect(again.deliveryId).toBe(first.deliveryId);
  });

  it.each<[string, SignedDelivery]>([
    [
      'Bitbucket Cloud with a wrong secret',
      {
        ...sign.bitbucket('{}'),
        headers: { ...sign.bitbucket('{}').headers, 'x-hub-signature': `sha256=${hmacHex('{}', 'wrong')}` },
      },
    ],
    [
      'Bitbucket Cloud without a signature',
      { ...sign.bitbucket('{}'), headers: { 'x-event-key': 'repo:push', 'x-request-uuid': 'u' } },
    ],
    [
      'Bitbucket Cloud with bare hex',
      {
        ...sign.bitbucket('{}'),
        headers: { ...sign.bitbucket('{}').headers, 'x-hub-signature': hmacHex('{}', SECRETS.bitbucket) },
      },
    ],
    [
      'Bitbucket Server signed with the Cloud secret',
      {
        ...sign.bitbucketServer('{}'),
        headers: {
          ...sign.bitbucketServer('{}').headers,
          'x-hub-signature': `sha256=${hmacHex('{}', SECRETS.bitbucket)}`,
        },
      },
    ],
    [
      'Bitbucket Server ping with a wrong signature',
      {
        ...sign.bitbucketServer('{"test":true}', 'p', 'diagnostics:ping'),
        headers: {
          ...sign.bitbucketServer('{"test":true}', 'p', 'diagnostics:ping').headers,
          'x-hub-signature': 'sha256=00',
        },
      },
    ],
    ['Azure DevOps with a wrong password', sign.azure('{}', 'wrong-password')],
    [
      'Azure DevOps without basic auth',
      { ...sign.azure('{}'), headers: { 'content-type': 'application/json' } },
    ],
    [
      'Azure DevOps with a bearer token',
      { ...sign.azure('{}'), headers: { authorization: `Bearer ${SECRETS.azure}` } },
    ],
    ['Gitea with a signature of another body', { ...sign.gitea('{"a":1}'), body: '{"a":2}' }],
    [
      'Gitea with a sha256= prefix it never sends',
      {
        ...sign.gitea('{}'),
        headers: {
          'x-gitea-event': 'push',
          'x-gitea-delivery': 'd',
          'x-gitea-signature': `sha256=${hmacHex('{}', SECRETS.gitea)}`,
        },
      },
    ],
    [
      'generic with a wrong secret',
      { ...sign.generic(generic), headers: { 'x-signature-256': `sha256=${hmacHex(generic, 'nope')}` } },
    ],
  ])('refuses %s with 401 before reading the body', async (_name, delivery) => {
    await expect(parse(delivery)).rejects.toBeInstanceOf(WebhookUnauthorizedError);
  });

  it.each(pushes)(
    'refuses a %s push with 401 when no secret is configured for it',
    async (_name, delivery) => {
      await expect(parse(delivery, {})).rejects.toBeInstanceOf(WebhookUnauthorizedError);
    },
  );

  it('accepts a delivery signed with any secret of a rotation list', async () => {
    const delivery = sign.generic(generic, 'r1');
    await expect(parse(delivery, { generic: ['new-secret', SECRETS.generic] })).resolves.toMatchObject({
      kind: 'push',
    });
    const azure = {
      ...sign.azure(body('azuredevops-git-push')),
      headers: { authorization: basicAuth('x', 'old') },
    };
    await expect(parse(azure, { 'azure-devops': ['new', 'old'] })).resolves.toMatchObject({ kind: 'push' });
  });

  it.each<[string, SignedDelivery, Record<string, unknown>]>([
    [
      'a Bitbucket Server ping',
      sign.bitbucketServer('{"test": true}', 'ping-1', 'diagnostics:ping'),
      { kind: 'ping', eventName: 'diagnostics:ping' },
    ],
    [
      'a Bitbucket Cloud pull request',
      sign.bitbucket(body('bitbucket-pullrequest-created'), 'u', 'pullrequest:created'),
      { kind: 'ignored', reason: 'event "pullrequest:created" is not handled' },
    ],
    [
      'a Bitbucket Server pull request',
      sign.bitbucketServer(body('bitbucket-server-pr-opened'), 'r', 'pr:opened'),
      { kind: 'ignored', reason: 'event "pr:opened" is not handled' },
    ],
    [
      'an Azure DevOps pull request',
      sign.azure(body('azuredevops-pullrequest-created')),
      { kind: 'ignored', eventName: 'git.pullrequest.created' },
    ],
    [
      'a Gitea issue event',
      sign.gitea(body('gitea-issues'), 'i', 'issues'),
      { kind: 'ignored', reason: 'event "issues" is not handled' },
    ],
    [
      'a Bitbucket Server branch deletion',
      sign.bitbucketServer(body('bitbucket-server-refs-changed-delete')),
      { kind: 'ignored', reason: 'ref deleted' },
    ],
    [
      'a Gitea branch deletion',
      sign.gitea(body('gitea-push', (p) => (p.after = '0'.repeat(40)))),
      { kind: 'ignored', reason: 'ref deleted' },
    ],
  ])('answers %s without processing it', async (_name, delivery, expected) => {
    await expect(parse(delivery)).resolves.toMatchObject(expected);
  });

  it('turns a Bitbucket push of three changes into pushes with derived delivery ids, dropping the deletion', async () => {
    const payload = hostFixture('bitbucket-repo-push');
    const changes = (payload.push as { changes: Record<string, unknown>[] }).changes;
    const [first] = changes;
    const tag = structuredClone(first) as Record<string, unknown>;
    (tag.new as Record<string, unknown>).type = 'tag';
    (tag.new as Record<string, unknown>).name = 'v3';
    const deletion = { ...structuredClone(first), new: null, closed: true };
    (payload.push as { changes: unknown[] }).changes = [first, deletion, tag];
    const parsed = await parse(sign.bitbucket(JSON.stringify(payload), 'uuid-3'));
    expect(parsed.kind).toBe('pushes');
    if (parsed.kind !== 'pushes') return;
    expect(parsed.events.map((e) => [e.deliveryId, e.ref])).toEqual([
      ['uuid-3:1', 'refs/heads/name-of-branch'],
      ['uuid-3:3', 'refs/tags/v3'],
    ]);
  });

  it.each<[string, SignedDelivery, string]>([
    [
      'Bitbucket Cloud without X-Event-Key',
      {
        ...sign.bitbucket('{}'),
        headers: { 'x-request-uuid': 'u', 'x-hub-signature': `sha256=${hmacHex('{}', SECRETS.bitbucket)}` },
      },
      'header x-event-key is required',
    ],
    [
      'Bitbucket Cloud without X-Request-UUID',
      {
        ...sign.bitbucket('{}'),
        headers: {
          'x-event-key': 'repo:push',
          'x-hub-signature': `sha256=${hmacHex('{}', SECRETS.bitbucket)}`,
        },
      },
      'header x-request-uuid is required',
    ],
    ['Bitbucket Cloud with a body that is not JSON', sign.bitbucket('{"push":'), 'body is not valid JSON'],
    [
      'Bitbucket Cloud with a body that is not a push',
      sign.bitbucket('{"repository":{"full_name":"a/b"}}'),
      '"push"',
    ],
    [
      'Bitbucket Server with a delivery id that is not one',
      sign.bitbucketServer(body('bitbucket-server-refs-changed'), 'a b'),
      'header x-request-id is not a valid delivery id',
    ],
    [
      'Azure DevOps git.push without id',
      sign.azure(body('azuredevops-git-push', (p) => delete p.id)),
      '"id"',
    ],
    ['Azure DevOps with a body that is a list', sign.azure('[]'), 'body must be a JSON object'],
    [
      'Gitea without an event header',
      { ...sign.gitea('{}'), headers: { 'x-gitea-signature': hmacHex('{}', SECRETS.gitea) } },
      'header x-gitea-event is required',
    ],
    [
      'Gitea without a delivery header',
      {
        ...sign.gitea('{}'),
        headers: { 'x-gitea-event': 'push', 'x-gitea-signature': hmacHex('{}', SECRETS.gitea) },
      },
      'header x-gitea-delivery is required',
    ],
    ['generic with a body that is not the documented one', sign.generic('{"repository":"x"}'), '"repo"'],
  ])('refuses %s with a 400', async (_name, delivery, message) => {
    const attempt = parse(delivery);
    await expect(attempt).rejects.toBeInstanceOf(BadRequestError);
    await expect(attempt).rejects.toThrow(message);
  });
});
