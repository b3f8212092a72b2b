import { pinnedRepositoryUrls } from '../argocd/pin.js';
import type { ManifestRenderer } from '../argocd-api/renderers.js';
import type { FindingsDigest } from '../audit/digest.js';
import type { FindingDraft } from '../audit/types.js';
import { createLimiter } from '../concurrency.js';
import { errorMessage } from '../errors.js';
import type { FleetConfig, RepositoryConfig } from '../fleet/fleet-config.js';
import type { GitCredentials } from '../git/credentials.js';
import type { GitReader } from '../git/manifests.js';
import type { ClusterApi } from '../kubernetes/cluster-api.js';
import type { Clock, Logger, Queue } from '../ports.js';
import type { PushMessage } from '../queue/messages.js';
import type { StoreCoverage } from '../secrets/store-coverage.js';
import { createManifestReader } from './app-manifests.js';
import { readArgoGates } from './argocd-gate.js';
import { auditCluster } from './audit-cluster.js';
import { groupMissedPushes } from './behind.js';
import { catchUpImages, type MissedImageDeps } from './missed-images.js';
import { enqueueMissedPushes } from './missed-webhooks.js';
import { type ReconcileSettings, resolveOptions } from './options.js';
import type { CatchUpRollouts, FindingsStore, ReconcileMemory } from './ports.js';
import { createLiveObjectsReader, readArgoClusters } from './read-clusters.js';
import type { InvalidApplication, ReconcileReport } from './report.js';
import { createRepositoriesReader } from './resolve-repos.js';
import { createFindingsSettler, sendDigest } from './settle-findings.js';

export interface ReconcileDeps {
  readonly fleet: FleetConfig;
  readonly clusters: ReadonlyMap<string, ClusterApi>;
  /** Created per pass by the caller, which closes it (its caches are the pass's). */
  readonly git: Pick<GitReader, 'listRemoteRefs' | 'readManifests'>;
  readonly credentials: (repo: RepositoryConfig) => Promise<GitCredentials | undefined>;
  readonly findings: FindingsStore;
  readonly memory: ReconcileMemory;
  readonly rollouts: CatchUpRollouts;
  readonly pushQueue: Queue<PushMessage>;
  /** Posts the findings digest to Slack; should never throw (a failure is logged and reported). */
  readonly digest: (message: FindingsDigest) => Promise<void>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly options?: ReconcileSettings;
  /** Argo CD's rendering for the audit, created per pass (absent: the files in Git only). */
  readonly renderer?: ManifestRenderer;
  /** Per cluster, how many of its live stores the ExternalSecret preflight can read (never throws). */
  readonly preflightCoverage?: () => Promise<readonly StoreCoverage[]>;
  /** The ECR catch-up (`ECR_REPOSITORY_ARNS`); absent: no registry call. */
  readonly registries?: Pick<
    MissedImageDeps,
    'images' | 'deliveries' | 'repositoryArns' | 'maxRepositories' | 'concurrency'
  >;
}

/**
 * One scheduled pass over the fleet: read each Argo CD cluster's Applications once, page by page, auditing
 * each page before the next is listed (a 5,000-app hub never sits in memory whole); each destination's live
 * autoscalers and each fleet repository's refs once, when the first app needs them; enqueue a push for every
 * commit whose webhook never came; upsert findings (resolving what is gone, on clusters read only); and post
 * a digest of what changed. A cluster or repository that fails is reported and never hides the others.
 */
export async function runReconcile(deps: ReconcileDeps): Promise<ReconcileReport> {
  const options = resolveOptions(deps.options);
  const started = deps.clock.now();
  const now = started.getTime();
  const log = deps.logger.child({ pass: started.toISOString() });

  const repos = createRepositoriesReader({ ...deps, concurrency: options.lsRefsConcurrency });
  const live = createLiveObjectsReader(deps.clusters, options.clusterConcurrency);
  // Alongside the pass: STS and ServiceAccount reads, each bounded by its own timeout.
  const coverage = deps.preflightCoverage?.().catch((error: unknown) => {
    log.warn('preflight coverage not read', { error: errorMessage(error) });
    return undefined;
  });
  const audit = {
    clusters: deps.fleet.clusters,
    manifests: createManifestReader({
      git: deps.git,
      credentials: deps.credentials,
      repositories: repos,
      ...(deps.renderer === undefined ? {} : { renderer: deps.renderer }),
    }),
    clock: deps.clock,
    now: started,
    deadline: now + options.timeBudgetMs,
    concurrency: options.auditConcurrency,
    // One budget of audits in flight for every cluster read at once.
    limit: createLimiter(options.auditConcurrency),
    audit: options.audit,
  };
  const limits = { windowMs: options.observationWindowMs, max: options.maxObservations };
  const pinned = pinnedRepositoryUrls(deps.fleet.repositories);
  // Each Argo CD's argocd-cm (the polling gate), read while the Applications are.
  const gates = readArgoGates(deps.fleet, deps.clusters, options.clusterConcurrency);
  const settler = createFindingsSettler(
    deps,
    started,
    options.lastSeenRefreshSeconds * 1000,
    options.digestMinSeverity,
  );
  const ofCluster = <T extends { readonly cluster: string }>(items: readonly T[], cluster: string) =>
    items.filter((i) => i.cluster === cluster);
  const argo = await readArgoClusters(
    deps.fleet,
    deps.clusters,
    {
      concurrency: Math.min(options.clusterConcurrency, options.pageConcurrency),
      readAppProjects: options.readAppProjects,
      readApplicationSets: pinned.length > 0,
    },
    async (read) => {
      // The cluster's memory is loaded as the pass reaches it and let go with the cluster.
      const previous = await deps.memory.loadCluster(read.cluster);
      const audited = await auditCluster(read, previous, {
        clusters: deps.fleet.clusters,
        repositories: repos,
        live,
        audit,
        now,
        limits,
        pinnedRepos: pinned,
      });
      // Written as soon as the cluster is done, so its memory and findings are not held while others are
      // audited; a failed write still fails the pass (below), as it did when every cluster was written at the end.
      const { memory: next, findings, notes, ...kept } = audited;
      const gate = await gates;
      const failed = await (next.changed
        ? deps.memory.saveCluster(read.cluster, next.apps, previous)
        : Promise.resolve()
      )
        .then(() =>
          settler.settleCluster(read.cluster, {
            findings: [
              ...findings,
              ...kept.invalid.map(unreadableFinding),
              ...ofCluster(gate.findings, read.cluster),
            ],
            notes: [...notes, ...ofCluster(gate.notes, read.cluster)],
          }),
        )
        .then(
          () => undefined,
          (error: unknown) => ({ error }),
        );
      return { audited: kept, failed };
    },
  );
  for (const { name, error } of argo.unread) log.warn('cluster unread', { cluster: name, error });
  for (const failure of repos.failed) log.warn('repository refs not read', failure);
  const saveFailed = argo.read.find((r) => r.value.failed !== undefined)?.value.failed;
  if (saveFailed !== undefined) throw saveFailed.error;
  const clusters = argo.read.map((r) => r.value.audited);

  const missedWebhooks = await enqueueMissedPushes(groupMissedPushes(clusters.flatMap((c) => c.behind)), {
    ...deps,
    logger: log,
    graceMs: options.graceSeconds * 1000,
  });

  const registryCatchUp =
    deps.registries === undefined
      ? undefined
      : await catchUpImages(
          clusters.flatMap((c) => c.registrySources),
          {
            ...deps.registries,
            rollouts: deps.rollouts,
            pushQueue: deps.pushQueue,
            clock: deps.clock,
            logger: log,
            graceMs: options.graceSeconds * 1000,
            deadline: now + options.timeBudgetMs,
          },
        );

  const invalid = clusters.flatMap((c) => c.invalid);
  const gate = await gates;
  const notAudited = clusters.reduce((sum, c) => sum + c.outOfTime, 0);
  // The gates of clusters whose Applications were not read: stored, resolving nothing there.
  const read = new Set(clusters.map((c) => c.cluster));
  for (const cluster of new Set(gate.findings.map((f) => f.cluster))) {
    if (read.has(cluster)) continue;
    await settler.settleCluster(
      cluster,
      { findings: ofCluster(gate.findings, cluster), notes: ofCluster(gate.notes, cluster) },
      { resolve: false },
    );
  }
  const outcome = await settler.finish();
  const digest =
    outcome.message === undefined ? 'nothing-changed' : await sendDigest(deps.digest, outcome.message, log);

  const preflightCoverage = await coverage;
  for (const c of preflightCoverage ?? []) {
    if (c.stores > 0)
      log.info('preflight coverage', { cluster: c.cluster, summary: c.summary, unreadable: c.unreadable });
  }
  const report: ReconcileReport = {
    startedAt: started.toISOString(),
    durationMs: deps.clock.now().getTime() - now,
    clusters: { read: clusters.map((c) => c.cluster), unread: argo.unread },
    applications: clusters.reduce((sum, c) => sum + c.applications, 0),
    repositories: { read: repos.read, failed: repos.failed },
    missedWebhooks,
    ...(registryCatchUp === undefined ? {} : { registryCatchUp }),
    findings: outcome.counts,
    digest,
    ...(preflightCoverage === undefined ? {} : { preflightCoverage }),
    skipped: {
      invalidApplications: invalid,
      unlistedRepositoryApps: clusters.reduce((sum, c) => sum + c.unlistedRepositoryApps, 0),
      notAudited,
      liveObjects: [...live.read]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .flatMap(([name, read]) => (read.ok ? [] : [{ name, error: read.error }])),
      appProjects: clusters.flatMap((c) =>
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
    ...(registryCatchUp === undefined
      ? {}
      : {
          missedImagesEnqueued: registryCatchUp.images.filter((m) => m.action === 'enqueued').length,
          registriesSkipped: registryCatchUp.skipped.length,
        }),
    notAudited,
    ...report.findings,
  });
  return report;
}

/** An Application Argo CD holds but we cannot read: a finding of its own, so it never vanishes silently. */
function unreadableFinding(app: InvalidApplication): FindingDraft {
  return {
    rule: 'unreadable-object',
    severity: 'high',
    cluster: app.cluster,
    namespace: app.namespace,
    app: app.name,
    message: `the Application cannot be read, so no push refreshes it: ${app.reason}`,
    evidence: { reason: app.reason },
  };
}
