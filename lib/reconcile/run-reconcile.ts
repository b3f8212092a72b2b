import type { ManifestRenderer } from '../argocd-api/renderers.js';
import type { FindingsDigest } from '../audit/digest.js';
import { destinationCluster } from '../fleet/destination.js';
import type { FleetConfig, RepositoryConfig } from '../fleet/fleet-config.js';
import type { GitCredentials } from '../git/credentials.js';
import type { GitReader } from '../git/manifests.js';
import type { ClusterApi } from '../kubernetes/cluster-api.js';
import type { Clock, Logger, Queue } from '../ports.js';
import type { PushMessage } from '../queue/messages.js';
import { createManifestReader } from './app-manifests.js';
import { type AuditTarget, auditApps } from './audit-apps.js';
import { groupMissedPushes } from './behind.js';
import { type ClusterPass, passCluster } from './memory-update.js';
import { enqueueMissedPushes } from './missed-webhooks.js';
import { type ReconcileSettings, resolveOptions } from './options.js';
import type { FindingsStore, ReconcileMemory, RolloutExistence } from './ports.js';
import { type ArgoClustersRead, readArgoClusters, readLiveObjects } from './read-clusters.js';
import type { InvalidApplication, ReconcileReport } from './report.js';
import { readRepositories } from './resolve-repos.js';
import { sendDigest, settleFindings } from './settle-findings.js';
import { type TrackedApp, type TrackedSource, trackApplication } from './tracked-app.js';

export interface ReconcileDeps {
  readonly fleet: FleetConfig;
  readonly clusters: ReadonlyMap<string, ClusterApi>;
  /** Created per pass by the caller, which closes it (its caches are the pass's). */
  readonly git: Pick<GitReader, 'listRemoteRefs' | 'readManifests'>;
  readonly credentials: (repo: RepositoryConfig) => Promise<GitCredentials | undefined>;
  readonly findings: FindingsStore;
  readonly memory: ReconcileMemory;
  readonly rollouts: RolloutExistence;
  readonly pushQueue: Queue<PushMessage>;
  /** Posts the findings digest to Slack; should never throw (a failure is logged and reported). */
  readonly digest: (message: FindingsDigest) => Promise<void>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly options?: ReconcileSettings;
  /** Argo CD's rendering for the audit, created per pass (absent: the files in Git only). */
  readonly renderer?: ManifestRenderer;
}

/**
 * One scheduled pass over the fleet: read each Argo CD cluster's Applications once, each destination's live
 * autoscalers once and each fleet repository's refs once; enqueue a push for every commit whose webhook
 * never came; audit every app; upsert findings (resolving what is gone, on clusters read only); and post a
 * digest of what changed. A cluster or repository that fails is reported and never hides the others.
 */
export async function runReconcile(deps: ReconcileDeps): Promise<ReconcileReport> {
  const options = resolveOptions(deps.options);
  const started = deps.clock.now();
  const now = started.getTime();
  const log = deps.logger.child({ pass: started.toISOString() });

  const [argo, memory] = await Promise.all([
    readArgoClusters(deps.fleet, deps.clusters, {
      concurrency: options.clusterConcurrency,
      readAppProjects: options.readAppProjects,
    }),
    deps.memory.load(),
  ]);
  for (const { name, error } of argo.unread) log.warn('cluster unread', { cluster: name, error });
  const { targets, invalid } = collectTargets(argo);
  const tracked = targets.flatMap((t) => (t.tracked === undefined ? [] : [t.tracked]));

  const destinations = new Set(
    tracked.flatMap((t) => destinationCluster(t.app.destination, t.cluster, deps.fleet.clusters) ?? []),
  );
  const [live, repos] = await Promise.all([
    readLiveObjects([...destinations].sort(), deps.clusters, options.clusterConcurrency),
    readRepositories(
      tracked.flatMap((t) => t.sources.map((s) => s.source)),
      { ...deps, concurrency: options.lsRefsConcurrency },
    ),
  ]);
  for (const failure of repos.failed) log.warn('repository refs not read', failure);
  const resolve = (source: TrackedSource) => repos.resolve(source.source);

  const passes = new Map<string, ClusterPass>();
  const limits = { windowMs: options.observationWindowMs, max: options.maxObservations };
  for (const [cluster, apps] of byCluster(argo, tracked)) {
    passes.set(cluster, passCluster(apps, memory.get(cluster), resolve, now, limits));
  }
  const missedWebhooks = await enqueueMissedPushes(
    groupMissedPushes([...passes.values()].flatMap((p) => p.behind)),
    { ...deps, logger: log, graceMs: options.graceSeconds * 1000 },
  );

  const audited = await auditApps(
    targets.map((t) => {
      const history = t.tracked && passes.get(t.cluster)?.history.get(t.tracked.key);
      return history ? { ...t, history } : t;
    }),
    {
      clusters: deps.fleet.clusters,
      manifests: createManifestReader({
        git: deps.git,
        credentials: deps.credentials,
        repositories: repos,
        ...(deps.renderer === undefined ? {} : { renderer: deps.renderer }),
      }),
      resolve,
      live,
      clock: deps.clock,
      now: started,
      deadline: now + options.timeBudgetMs,
      concurrency: options.auditConcurrency,
      audit: options.audit,
    },
  );
  await Promise.all(
    [...passes]
      .filter(([, pass]) => pass.changed)
      .map(([cluster, pass]) => deps.memory.saveCluster(cluster, pass.apps, memory.get(cluster))),
  );

  const outcome = await settleFindings(
    deps,
    argo.read.map((c) => c.cluster),
    audited,
    started,
    options.lastSeenRefreshSeconds * 1000,
  );
  const digest =
    outcome.message === undefined ? 'nothing-changed' : await sendDigest(deps.digest, outcome.message, log);

  const report: ReconcileReport = {
    startedAt: started.toISOString(),
    durationMs: deps.clock.now().getTime() - now,
    clusters: { read: argo.read.map((c) => c.cluster), unread: argo.unread },
    applications: targets.length,
    repositories: { read: repos.read, failed: repos.failed },
    missedWebhooks,
    findings: outcome.counts,
    digest,
    skipped: {
      invalidApplications: invalid,
      unlistedRepositoryApps: tracked.filter((t) => t.sources.some((s) => resolve(s).kind === 'unlisted'))
        .length,
      notAudited: audited.outOfTime,
      liveObjects: [...live].flatMap(([name, read]) => (read.ok ? [] : [{ name, error: read.error }])),
      appProjects: argo.read.flatMap((c) =>
        c.appProjectsError === undefined ? [] : [{ name: c.cluster, error: c.appProjectsError }],
      ),
    },
  };
  log.info('reconcile pass done', {
    durationMs: report.durationMs,
    clustersRead: report.clusters.read.length,
    clustersUnread: report.clusters.unread.length,
    applications: report.applications,
    missedWebhooksEnqueued: missedWebhooks.filter((m) => m.action === 'enqueued').length,
    notAudited: audited.outOfTime,
    ...report.findings,
  });
  return report;
}

function collectTargets(argo: ArgoClustersRead): {
  targets: AuditTarget[];
  invalid: InvalidApplication[];
} {
  const targets: AuditTarget[] = [];
  const invalid: InvalidApplication[] = [];
  for (const { cluster, applications, appProjects } of argo.read) {
    for (const raw of applications) {
      const tracked = trackApplication(cluster, raw);
      if (!tracked.ok) {
        const { namespace, name, reason } = tracked;
        invalid.push({ cluster, namespace, name, reason });
      }
      targets.push({
        cluster,
        raw,
        ...(tracked.ok ? { tracked: tracked.value } : {}),
        ...(appProjects === undefined ? {} : { appProjects }),
      });
    }
  }
  return { targets, invalid };
}

function byCluster(argo: ArgoClustersRead, tracked: readonly TrackedApp[]): Map<string, TrackedApp[]> {
  const groups = new Map<string, TrackedApp[]>(argo.read.map((c) => [c.cluster, []]));
  for (const app of tracked) groups.get(app.cluster)?.push(app);
  return groups;
}
