import { describe, expect, it } from 'vitest';
import { AppError } from '../../../lib/errors.js';
import { parseDelivery } from '../../../lib/webhook/parse-delivery.js';
import { ALL_SECRETS, type HostFixture, hostFixture, type SignedDelivery, sign } from './hosts.js';
import { githubPayloads, gitlabFixture, signGitHub } from './support.js';

const ODD_VALUES = [null, 0, -1, '', 'x', true, [], {}, [null], ['x'], { id: 1 }] as const;
type Payload = Record<string, unknown>;

/** Every top-level and one-level-deep field of `payload`, replaced in turn by each odd value. */
function* mutations(payload: Payload): Generator<[string, Payload]> {
  for (const [key, value] of Object.entries(payload)) {
    for (const odd of ODD_VALUES) yield [key, { ...payload, [key]: odd }];
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const inner of Object.keys(value)) {
        for (const odd of ODD_VALUES)
          yield [`${key}.${inner}`, { ...payload, [key]: { ...value, [inner]: odd } }];
      }
    }
  }
}

/** The outcome class: a parsed delivery, or an error a caller caused (< 500); anything else is a bug. */
async function outcomeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'parsed';
  } catch (error) {
    if (error instanceof AppError && error.status < 500) return `caller-error`;
    return `bug: ${String(error)}`;
  }
}

describe('parseDelivery never fails on its own for odd payloads that are correctly signed', () => {
  it('answers every mutation of a real GitHub push with a result or a 4xx', async () => {
    const bugs: string[] = [];
    for (const [path, payload] of mutations(githubPayloads.branchPush([{ modified: ['a.yaml'] }]))) {
      const body = Buffer.from(JSON.stringify(payload));
      const outcome = await outcomeOf(() =>
        parseDelivery({
          provider: 'github',
          body,
          secrets: { github: ['s'], gitlab: [] },
          headers: {
            'x-github-event': 'push',
            'x-github-delivery': 'd',
            'x-hub-signature-256': signGitHub(body, 's'),
          },
        }),
      );
      if (outcome.startsWith('bug')) bugs.push(`${path}: ${outcome}`);
    }
    expect(bugs).toEqual([]);
  });

  it.each(['push', 'tag-push', 'system-hook-push'])(
    'answers every mutation of the GitLab %s fixture with a result or a 4xx',
    async (fixture) => {
      const bugs: string[] = [];
      const event =
        fixture === 'system-hook-push' ? 'System Hook' : fixture === 'push' ? 'Push Hook' : 'Tag Push Hook';
      for (const [path, payload] of mutations(gitlabFixture(fixture))) {
        const outcome = await outcomeOf(() =>
          parseDelivery({
            provider: 'gitlab',
            body: Buffer.from(JSON.stringify(payload)),
            secrets: { github: [], gitlab: ['t'] },
            headers: { 'x-gitlab-event': event, 'x-gitlab-token': 't' },
          }),
        );
        if (outcome.startsWith('bug')) bugs.push(`${path}: ${outcome}`);
      }
      expect(bugs).toEqual([]);
    },
  );

  const hosts: [HostFixture, (body: string) => SignedDelivery, ((p: Payload) => Payload)?][] = [
    ['bitbucket-repo-push', (b) => sign.bitbucket(b)],
    ['bitbucket-server-refs-changed', (b) => sign.bitbucketServer(b)],
    ['azuredevops-git-push', (b) => sign.azure(b)],
    ['gitea-push', (b) => sign.gitea(b)],
    ['gogs-push', (b) => sign.gogs(b)],
  ];
  it.each(hosts)(
    'answers every mutation of the %s sample with a result or a 4xx',
    async (fixture, signed) => {
      const bugs: string[] = [];
      for (const [path, payload] of mutations(hostFixture(fixture))) {
        const delivery = signed(JSON.stringify(payload));
        const outcome = await outcomeOf(() =>
          parseDelivery({
            provider: delivery.provider,
            body: Buffer.from(delivery.body),
            secrets: ALL_SECRETS,
            headers: delivery.headers,
          }),
        );
        if (outcome.startsWith('bug')) bugs.push(`${path}: ${outcome}`);
      }
      expect(bugs).toEqual([]);
    },
  );

  it('answers every mutation of a generic body with a result or a 4xx', async () => {
    const bugs: string[] = [];
    const body = {
      repo: 'https://h/o/r',
      ref: 'main',
      before: 'a'.repeat(40),
      after: 'b'.repeat(40),
      files: ['x'],
    };
    for (const [path, payload] of mutations(body)) {
      const delivery = sign.generic(JSON.stringify(payload));
      const outcome = await outcomeOf(() =>
        parseDelivery({
          provider: 'generic',
          body: Buffer.from(delivery.body),
          secrets: ALL_SECRETS,
          headers: delivery.headers,
        }),
      );
      if (outcome.startsWith('bug')) bugs.push(`${path}: ${outcome}`);
    }
    expect(bugs).toEqual([]);
  });
});
