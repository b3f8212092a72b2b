import { createHmac } from 'node:crypto';
import { expect } from 'vitest';
import { githubPush, type SignedDelivery } from '../../../../infra/local/sample-push.js';
import { LOCAL_GITHUB_SECRET } from '../../../../infra/local/stack.js';
import { defaultPushExpectations } from '../../../../infra/simulator/default-push.js';
import type { TestStack } from '../../../helpers/local-stack.js';
import { commitDefaultChange as commitDefaultChangeAgain } from '../../../helpers/world-push.js';

/** Commits the default web-image change once more (a new commit each time) and signs its GitHub push. */
export async function commitDefaultChange(
  stack: Pick<TestStack, 'world'>,
  deliveryId: string,
): Promise<{ after: string; delivery: SignedDelivery }> {
  const { commit, sample } = await commitDefaultChangeAgain(stack);
  return { after: commit.after, delivery: githubPush(sample, LOCAL_GITHUB_SECRET, deliveryId) };
}

/** The same delivery with `commits × pathsPerCommit` extra changed paths, the real change listed last. */
export function withManyFiles(
  delivery: SignedDelivery,
  commits: number,
  pathsPerCommit: number,
): SignedDelivery {
  const payload = JSON.parse(delivery.body) as { commits: Record<string, unknown>[]; head_commit: unknown };
  const head = payload.commits[0] ?? {};
  payload.commits = Array.from({ length: commits }, (_, c) => ({
    ...head,
    id: c === commits - 1 ? head.id : `${String(c).padStart(2, '0')}${'f'.repeat(38)}`,
    modified: Array.from(
      { length: pathsPerCommit },
      (_, p) => `docs/bulk/commit-${c}/file-${p}-${'long-file-name-'.repeat(3)}.md`,
    ),
  }));
  const last = payload.commits[commits - 1] as { modified: string[] };
  last.modified.push(...((head.modified as string[]) ?? []));
  const body = JSON.stringify(payload);
  return {
    body,
    headers: {
      ...delivery.headers,
      'x-hub-signature-256': `sha256=${createHmac('sha256', LOCAL_GITHUB_SECRET).update(body).digest('hex')}`,
    },
  };
}

interface AppOut {
  cluster: string;
  name: string;
  kind: string;
  state: string;
}

/** Every object the default change should reach ended as expected, and none other was recorded. */
export function expectDefaultOutcome(rollout: Record<string, unknown>): void {
  const apps = rollout.apps as AppOut[];
  const expected = defaultPushExpectations().filter((e) => e.state !== undefined);
  const applications = apps.filter((a) => a.kind === 'Application');
  const seen = applications.map((a) => `${a.cluster}/${a.kind}/${a.name}=${a.state}`).sort();
  expect(seen).toEqual(expected.map((e) => `${e.cluster}/${e.kind}/${e.name}=${e.state}`).sort());
  const others = apps.filter((a) => a.kind !== 'Application').map((a) => `${a.cluster}/${a.kind}/${a.name}`);
  expect(others.sort()).toEqual(['hub/ApplicationSet/previews', 'spoke-c/GitRepository/platform']);
}

/** PATCH requests per object on every simulated cluster since the logs were last reset. */
export function patchesPerObject(stack: Pick<TestStack, 'world'>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [cluster, server] of stack.world?.fleet.servers ?? []) {
    for (const r of server.requests.all()) {
      if (r.verb !== 'patch') continue;
      const key = `${cluster}/${r.resource}/${r.name}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return counts;
}

export function resetRequestLogs(stack: Pick<TestStack, 'world'>): void {
  for (const server of stack.world?.fleet.servers.values() ?? []) server.requests.reset();
}
