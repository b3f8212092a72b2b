import { createBareRepo } from '../../../infra/local/git-repos.js';
import type { SeedObject, SimulatedClusterSpec } from '../../../infra/simulator/default-fleet.js';
import { type SimulatedFleet, startSimulatedFleet } from '../../../infra/simulator/simulated-fleet.js';
import type { FindingsReader } from '../../../lib/api/findings-reader.js';
import type { FindingsDigest } from '../../../lib/audit/digest.js';
import type { FleetConfig, RepositoryConfig } from '../../../lib/fleet/fleet-config.js';
import { createGitReader } from '../../../lib/git/manifests.js';
import { listRemoteRefs, resolveRevision } from '../../../lib/git/remote-refs.js';
import { createRepoAllowList } from '../../../lib/git/repo-url.js';
import { type ClusterClients, createClusterClients } from '../../../lib/kubernetes/cluster-clients.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { constraintMatches } from '../../../lib/matching/semver.js';
import type { Queue } from '../../../lib/ports.js';
import type { PushMessage } from '../../../lib/queue/messages.js';
import type { ReconcileSettings } from '../../../lib/reconcile/options.js';
import type { CatchUpRollouts, FindingsStore, ReconcileMemory } from '../../../lib/reconcile/ports.js';
import type { ReconcileReport } from '../../../lib/reconcile/report.js';
import { runReconcile } from '../../../lib/reconcile/run-reconcile.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { dynamoFindingsStore } from '../../../lib/store/findings.js';
import { dynamoReconcileMemory, dynamoRolloutExistence } from '../../../lib/store/reconcile-memory.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';
import { startTestGitHost, type TestGitHost } from '../../helpers/git.js';

export interface RepoSpec {
  readonly files: Readonly<Record<string, string>>;
  readonly tags?: readonly string[];
}

export interface WorldSpec {
  readonly repos: Readonly<Record<string, RepoSpec>>;
  readonly clusters: readonly SimulatedClusterSpec[];
  /** Seed objects per cluster, given each repository's URL and first commit by name. */
  objects(
    urls: Readonly<Record<string, string>>,
    heads: Readonly<Record<string, string>>,
  ): Readonly<Record<string, readonly SeedObject[]>>;
  /** Repositories the fleet file lists (default: every repo of the world). */
  repositories?(urls: Readonly<Record<string, string>>): readonly RepositoryConfig[];
  readonly start?: Date;
}

export interface ManualClock {
  now(): Date;
  advance(ms: number): void;
}

export interface ReconcileWorld {
  readonly git: TestGitHost;
  readonly sim: SimulatedFleet;
  readonly fleet: FleetConfig;
  readonly table: TableRef;
  readonly urls: Readonly<Record<string, string>>;
  /** Each repository's first commit. */
  readonly heads: Readonly<Record<string, string>>;
  readonly clients: ClusterClients;
  readonly findings: FindingsStore & FindingsReader;
  readonly memory: ReconcileMemory;
  readonly rollouts: CatchUpRollouts;
  readonly sent: PushMessage[];
  readonly digests: FindingsDigest[];
  readonly clock: ManualClock;
  /** One reconcile pass with a fresh Git reader (closed after), as the function runs it. */
  pass(
    options?: ReconcileSettings,
    overrides?: { digest?: (message: FindingsDigest) => Promise<void>; rollouts?: CatchUpRollouts },
  ): Promise<ReconcileReport>;
  close(): Promise<void>;
}

export function manualClock(start: Date): ManualClock {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advance: (ms) => {
      now += ms;
    },
  };
}

/** Real Git (http-backend), simulated clusters, dynalite; Slack and the push queue are recorded. */
export async function startReconcileWorld(spec: WorldSpec): Promise<ReconcileWorld> {
  const git = await startTestGitHost();
  const urls: Record<string, string> = {};
  const heads: Record<string, string> = {};
  for (const [name, repo] of Object.entries(spec.repos)) {
    heads[name] = await createBareRepo(
      git.root,
      name,
      repo.files,
      repo.tags === undefined ? {} : { tags: repo.tags },
    );
    urls[name] = git.url(name);
  }
  const allowList = createRepoAllowList(Object.values(urls));
  const sim = await startSimulatedFleet({
    clusters: spec.clusters,
    objects: spec.objects(urls, heads),
    resolveRevision: async (repoURL, revision) => {
      const resolved = resolveRevision(
        await listRemoteRefs({ url: repoURL }, { allowList }),
        revision,
        constraintMatches,
      );
      return resolved.found ? resolved.sha : undefined;
    },
    controller: { tickMs: 0 },
    repositories: spec.repositories?.(urls) ?? Object.values(urls).map((url) => ({ url })),
  });
  const dynamo: TestTable = await startTestTable();
  const table = createTableRef({ tableName: dynamo.tableName, region: 'local', endpoint: dynamo.endpoint });
  const clock = manualClock(spec.start ?? new Date(Math.floor(Date.now() / 1000) * 1000));
  const clients = createClusterClients(sim.fleetConfig, {
    secrets: { getSecretString: () => Promise.reject(new Error('no secrets here')) },
    retry: false,
  });
  const findings = dynamoFindingsStore(table, { clock });
  const memory = dynamoReconcileMemory(table);
  const rollouts: CatchUpRollouts = {
    ...dynamoRolloutExistence(table),
    listApps: (sha) => dynamoRolloutReader(table).listApps(sha),
  };
  const sent: PushMessage[] = [];
  const digests: FindingsDigest[] = [];
  const pushQueue: Queue<PushMessage> = {
    send: async (message) => {
      sent.push(structuredClone(message));
    },
    sendBatch: async (entries) => {
      for (const { message } of entries) sent.push(structuredClone(message));
    },
  };
  return {
    git,
    sim,
    fleet: sim.fleetConfig,
    table,
    urls,
    heads,
    clients,
    findings,
    memory,
    rollouts,
    sent,
    digests,
    clock,
    async pass(options = {}, overrides = {}) {
      const reader = createGitReader({ repositories: sim.fleetConfig.repositories.map((r) => r.url) });
      try {
        return await runReconcile({
          fleet: sim.fleetConfig,
          clusters: clients,
          git: reader,
          credentials: async () => undefined,
          findings,
          memory,
          rollouts: overrides.rollouts ?? rollouts,
          pushQueue,
          digest:
            overrides.digest ??
            (async (message) => {
              digests.push(message);
            }),
          clock,
          logger: createMemoryLogger(),
          options,
        });
      } finally {
        await reader.close();
      }
    },
    async close() {
      table.doc.destroy();
      await Promise.allSettled([sim.close(), git.close(), dynamo.close()]);
    },
  };
}
