import { createHmac } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { DefaultWorld, RepoName } from '../../infra/local/default-world.js';
import type { CommitResult } from '../../infra/local/git-repos.js';
import { githubPush, type SampleCommit, type SignedDelivery } from '../../infra/local/sample-push.js';
import { LOCAL_GITHUB_SECRET } from '../../infra/local/stack.js';
import type { SeedObject } from '../../infra/simulator/default-fleet.js';
import { defaultPush } from '../../infra/simulator/default-push.js';
import type { SimulatedFleet } from '../../infra/simulator/simulated-fleet.js';
import { APPLICATIONS } from '../../lib/kubernetes/resources.js';
import { startTestStack, type TestStack } from './local-stack.js';

export interface WorldPushOptions {
  /** Default `platform`. */
  readonly repository?: RepoName;
  /** Default `main`. */
  readonly branch?: string;
  /** A force push (a rollback, a rewritten history). */
  readonly forced?: boolean;
}

/** A commit the simulated world's Git server took, as the webhook names it. */
export interface WorldCommit {
  readonly before: string;
  readonly after: string;
  readonly changed: readonly string[];
}

/** The push sample a Git host sends for a commit of the simulated world (`example/<repository>`). */
export function worldSample(
  world: Pick<DefaultWorld, 'repoUrl'>,
  commit: WorldCommit,
  message: string,
  options: WorldPushOptions = {},
): SampleCommit {
  const repository = options.repository ?? 'platform';
  return {
    repoUrl: world.repoUrl(repository),
    fullName: `example/${repository}`,
    branch: options.branch ?? 'main',
    before: commit.before,
    after: commit.after,
    changed: commit.changed,
    message,
    ...(options.forced === undefined ? {} : { forced: options.forced }),
  };
}

/** The GitHub push of a commit of the simulated world, signed with the local stack's secret. */
export function signedWorldPush(
  world: Pick<DefaultWorld, 'repoUrl'>,
  commit: WorldCommit,
  message: string,
  options: WorldPushOptions & { readonly deliveryId?: string | undefined } = {},
): SignedDelivery {
  return githubPush(worldSample(world, commit, message, options), LOCAL_GITHUB_SECRET, options.deliveryId);
}

/** The stack's simulated world (the default one), or a clear failure when it runs without one. */
export function worldOf(stack: { readonly world?: DefaultWorld | undefined }): DefaultWorld {
  if (stack.world === undefined) throw new Error('no simulated world');
  return stack.world;
}

/** Commits `changes` to the simulated world, as a developer's `git push` would, and signs its GitHub push. */
export async function commitAndSign(
  stack: { readonly world?: DefaultWorld | undefined },
  changes: Record<string, string | null>,
  message: string,
  options: WorldPushOptions & { readonly deliveryId?: string | undefined } = {},
): Promise<{ commit: CommitResult; delivery: SignedDelivery }> {
  const world = worldOf(stack);
  const commit = await world.commit(options.repository ?? 'platform', changes, message, options.branch);
  return { commit, delivery: signedWorldPush(world, commit, message, options) };
}

let defaultChanges = 0;

/**
 * Commits the default change (`infra/simulator/default-push.ts`) once more: a new web image tag each time,
 * since the same content twice would be an empty commit.
 */
export async function commitDefaultChange(stack: {
  readonly world?: DefaultWorld | undefined;
}): Promise<{ commit: CommitResult; sample: SampleCommit }> {
  const world = worldOf(stack);
  const push = defaultPush();
  defaultChanges += 1;
  const changes = Object.fromEntries(
    Object.entries(push.changes).map(([path, text]) => [
      path,
      text.replace('web:1.9.0', `web:1.9.${defaultChanges}00`),
    ]),
  );
  const commit = await world.commit(push.repository, changes, push.message, push.branch);
  return { commit, sample: worldSample(world, commit, push.message, { branch: push.branch }) };
}

/** An Application of a simulated fleet (project `default`, auto-sync) on the given `source` or `sources`. */
export function fleetApplication(
  name: string,
  sources: { readonly source: Record<string, unknown> } | { readonly sources: Record<string, unknown>[] },
): SeedObject {
  return {
    resource: APPLICATIONS,
    object: {
      metadata: { name, namespace: 'argocd' },
      spec: {
        project: 'default',
        ...sources,
        destination: { name: 'in-cluster', namespace: name },
        syncPolicy: { automated: { prune: true, selfHeal: true } },
      },
    },
  };
}

export interface EcrPush {
  readonly id: string;
  readonly account: string;
  readonly region: string;
  readonly repository: string;
  readonly tag: string;
  readonly digest: string;
}

/** The EventBridge `ECR Image Action` event of a push, as ECR sends it (the body of `/webhooks/ecr`). */
export function ecrPushEvent(push: EcrPush): string {
  return JSON.stringify({
    version: '0',
    id: push.id,
    'detail-type': 'ECR Image Action',
    source: 'aws.ecr',
    account: push.account,
    time: '2026-12-02T12:00:00Z',
    region: push.region,
    resources: [],
    detail: {
      result: 'SUCCESS',
      'repository-name': push.repository,
      'image-digest': push.digest,
      'action-type': 'PUSH',
      'image-tag': push.tag,
    },
  });
}

/** A JSON body signed with `x-signature-256` (the HMAC of the body), as the generic and ECR routes take it. */
export function signedJson(body: string, secret: string): { headers: Record<string, string>; body: string } {
  return {
    headers: {
      'content-type': 'application/json',
      'x-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    },
    body,
  };
}

/**
 * The local stack on a simulated fleet: its clusters written to a fleet file (no repository: a registry push
 * reads nothing from Git, so the preflight passes without one), the stack started with `env`. `close` stops
 * the stack and removes the file.
 */
export async function startFleetStack(
  fleet: Pick<SimulatedFleet, 'clusters'>,
  env: Record<string, string>,
): Promise<{ readonly stack: TestStack; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'gitops-sync-fleet-stack-'));
  const fleetFile = join(dir, 'fleet.yaml');
  await writeFile(
    fleetFile,
    stringify({
      clusters: fleet.clusters.map((c) => ({
        name: c.name,
        server: c.server,
        auth: { token: c.token },
        argocd: { namespace: 'argocd' },
      })),
      secretPolicy: 'block',
    }),
  );
  const stack = await startTestStack({ FLEET_CONFIG: fleetFile, ...env }).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });
  return {
    stack,
    close: async () => {
      await stack.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
