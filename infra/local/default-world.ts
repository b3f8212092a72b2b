import type { FleetConfig } from '../../lib/fleet/fleet-config.js';
import { gitTreeSource } from '../../lib/git/git-tree.js';
import { listRemoteRefs, resolveRevision } from '../../lib/git/remote-refs.js';
import { createRepoAllowList } from '../../lib/git/repo-url.js';
import { canonicalRepoKey } from '../../lib/matching/repo-url.js';
import { constraintMatches } from '../../lib/matching/semver.js';
import type { ControllerOptions } from '../simulator/argocd-controller.js';
import { defaultFleet } from '../simulator/default-fleet.js';
import { DEFAULT_TAGS, defaultRepoFiles } from '../simulator/default-repos.js';
import { defaultSecrets } from '../simulator/default-secrets.js';
import { type SimulatedFleet, startSimulatedFleet } from '../simulator/simulated-fleet.js';
import {
  bareRepoPath,
  type CommitResult,
  commitFiles,
  createBareRepo,
  makeReposRoot,
  removeReposRoot,
} from './git-repos.js';
import { type GitServer, startGitServer } from './git-server.js';
import { type LocalSecretsManager, startLocalSecretsManager } from './secrets-manager.js';

export type RepoName = 'platform' | 'payments';

/** The simulated world of `npm start` without FLEET_CONFIG: Git repositories, Secrets Manager, four clusters. */
export interface DefaultWorld {
  readonly fleetConfig: FleetConfig;
  readonly fleet: SimulatedFleet;
  readonly git: GitServer;
  readonly reposRoot: string;
  readonly secretsManager: LocalSecretsManager;
  repoUrl(name: RepoName): string;
  /** Pushes a commit to a local repository, as a developer's `git push` would. */
  commit(
    name: RepoName,
    changes: Record<string, string | null>,
    message: string,
    branch?: string,
  ): Promise<CommitResult>;
  close(): Promise<void>;
}

export async function startDefaultWorld(
  options: { controller?: Omit<ControllerOptions, 'store' | 'resolveRevision'>; reposRoot?: string } = {},
): Promise<DefaultWorld> {
  const reposRoot = options.reposRoot ?? (await makeReposRoot('gitops-sync-local-'));
  const git = await startGitServer({ root: reposRoot });
  const urls = { platform: git.url('platform'), payments: git.url('payments') };
  const files = defaultRepoFiles(urls.platform);
  await createBareRepo(reposRoot, 'platform', files.platform, { tags: [...DEFAULT_TAGS.platform] });
  await createBareRepo(reposRoot, 'payments', files.payments, { tags: [...DEFAULT_TAGS.payments] });
  const secretsManager = await startLocalSecretsManager({
    secrets: Object.entries(defaultSecrets()).map(([name, value]) =>
      typeof value === 'string' ? { name, string: value } : { name, binary: value },
    ),
  });
  const allowList = [urls.platform, urls.payments];
  // The simulated Argo CD resolves revisions against the real local Git server, as repo-server would.
  const resolve = async (repoURL: string, targetRevision: string) => {
    try {
      const refs = await listRemoteRefs({ url: repoURL }, { allowList: createRepoAllowList(allowList) });
      const resolved = resolveRevision(refs, targetRevision, constraintMatches);
      return resolved.found ? resolved.sha : undefined;
    } catch {
      return undefined;
    }
  };
  // The simulated Argo CD API server renders from the bare repositories on disk, as repo-server would from Git.
  const names = new Map(
    (Object.keys(urls) as RepoName[]).map((name) => [canonicalRepoKey(urls[name]), name] as const),
  );
  const gitCache = {};
  const treeAt = async (repoURL: string, sha: string) => {
    const name = names.get(canonicalRepoKey(repoURL));
    if (name === undefined) return undefined;
    const tree = gitTreeSource({ gitdir: bareRepoPath(reposRoot, name), oid: sha, cache: gitCache });
    return (await tree.listDirectory('').catch(() => undefined)) === undefined ? undefined : tree;
  };
  const world = defaultFleet(urls);
  const fleet = await startSimulatedFleet({
    ...world,
    resolveRevision: resolve,
    ...(options.controller === undefined ? {} : { controller: options.controller }),
    repositories: allowList.map((url) => ({ url })),
    // The hub's Argo CD answers the manifests API (preflight and audit on its rendering); spoke-c's does
    // not, so the local stack shows both paths.
    argocdApi: { clusters: ['hub'], treeAt },
    anonymous: { user: 'system:anonymous' },
  });
  return {
    fleetConfig: fleet.fleetConfig,
    fleet,
    git,
    reposRoot,
    secretsManager,
    repoUrl: (name) => urls[name],
    commit: (name, changes, message, branch = 'main') =>
      commitFiles(reposRoot, name, { branch, changes, message }),
    async close() {
      await fleet.close();
      await git.close();
      await secretsManager.close();
      if (options.reposRoot === undefined) await removeReposRoot(reposRoot);
    },
  };
}
