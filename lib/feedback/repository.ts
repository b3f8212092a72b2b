import type { RepositoryConfig } from '../fleet/fleet-config.js';
import { canonicalRepoKey } from '../matching/repo-url.js';
import type { RolloutReader } from '../rollouts/ports/rollout-reader.js';
import type { Rollout } from '../rollouts/rollout-model.js';

/**
 * The fleet repository a rollout reports back to, among those that asked for this kind of feedback;
 * undefined for another repository, and for a registry rollout (`oci://...`: no commit on a Git host).
 */
export function feedbackRepository(
  enabled: readonly RepositoryConfig[],
  rollout: Pick<Rollout, 'repoUrl'>,
): RepositoryConfig | undefined {
  const key = canonicalRepoKey(rollout.repoUrl);
  if (key === undefined) return undefined;
  return enabled.find((r) => canonicalRepoKey(r.url) === key);
}

/**
 * A reader and the way to share one read of a rollout among the notices of one change: within
 * `during(sha, run)`, the `get`s of that rollout made while a read of it is in flight share that read (the
 * notices, Slack, statuses, check run, deployments, start side by side and each read the whole rollout: one
 * DynamoDB query of every app item apiece otherwise). A `get` made after the shared read settled reads again
 * (the deployments notice reads again on purpose, to see what racing callers left to it), and nothing
 * outlives its change, so a later change is never answered with an older rollout.
 */
export function sharedRead<R extends Pick<RolloutReader, 'get'>>(reader: R) {
  type Window = { read: ReturnType<RolloutReader['get']> | undefined };
  const current = new Map<string, Window>();
  const get = (sha: string) => {
    const window = current.get(sha);
    if (window === undefined) return reader.get(sha);
    // Read on the first notice that asks (a change no notice reads costs nothing), shared while in flight.
    if (window.read === undefined) {
      const read = reader.get(sha);
      window.read = read;
      const settled = () => {
        if (window.read === read) window.read = undefined;
      };
      read.then(settled, settled);
    }
    return window.read;
  };
  return {
    reader: { ...reader, get } as R,
    async during<T>(sha: string, run: () => Promise<T>): Promise<T> {
      const window: Window = { read: undefined };
      current.set(sha, window);
      try {
        return await run();
      } finally {
        if (current.get(sha) === window) current.delete(sha);
      }
    },
  };
}
