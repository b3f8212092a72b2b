import type { DefaultWorld, RepoName } from '../../infra/local/default-world.js';
import type { CommitResult } from '../../infra/local/git-repos.js';
import { githubPush, type SampleCommit, type SignedDelivery } from '../../infra/local/sample-push.js';
import { LOCAL_GITHUB_SECRET } from '../../infra/local/stack.js';
import { defaultPush } from '../../infra/simulator/default-push.js';

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
