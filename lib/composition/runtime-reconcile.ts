import { createArgoCdApis, createRenderCache, createRenderMemo } from '../argocd-api/renderers.js';
import { createEcrImages } from '../aws/ecr-images.js';
import { errorMessage } from '../errors.js';
import { createGitReaderPool } from '../git/manifests.js';
import { CLUSTER_SECRET_STORES, SECRET_STORES } from '../kubernetes/resources.js';
import { postToSlack } from '../notify/slack-target.js';
import { countReconcile } from '../observability/reconcile-metrics.js';
import { summarizePass } from '../reconcile/report.js';
import { runReconcile } from '../reconcile/run-reconcile.js';
import { sweepRollouts } from '../rollouts/sweep.js';
import { storeCoverage } from '../secrets/store-coverage.js';
import { dynamoDeliveryStore } from '../store/deliveries.js';
import { dynamoReconcileMemory, dynamoRolloutExistence } from '../store/reconcile-memory.js';
import { recordLastPass } from '../store/reconcile-pass.js';
import {
  type FleetBuilder,
  type FleetContext,
  type FleetFunctions,
  fleetContext,
  gitCacheDir,
} from './runtime-fleet.js';
import { preflightIdentity } from './runtime-preflight-identity.js';

/** How long past its deadline a rollout may stay open before the sweep finishes it. */
const SWEEP_GRACE_SECONDS = 60;

/** The reconcile Lambda's part of the fleet (`functions/reconcile.ts`). */
export const reconcileFunctions: FleetBuilder = async (shared) => ({
  reconcile: createReconcile(await fleetContext(shared)),
});

/** One pass: missed webhooks, drift, failed or thrashing syncs, the audit, then the sweep of open rollouts. */
export function createReconcile(context: FleetContext): FleetFunctions['reconcile'] {
  const { config, logger, clock, metrics, table, secretReader, pushQueue, trackQueue } = context;
  const { fleetConfig, rollouts, reader, findings } = context;
  const argocdApis = context.part('argocdApis', () =>
    createArgoCdApis(fleetConfig.clusters, { secrets: secretReader }),
  );
  // The audit's renders, reused across passes of a warm container while an app's spec and revisions hold.
  const auditRenders = createRenderMemo();
  const gitPool = context.part('gitPool', () =>
    createGitReaderPool({
      repositories: fleetConfig.repositories.map((r) => r.url),
      cacheDir: gitCacheDir(context),
      logger,
    }),
  );
  // The sweep alone (its own, shorter schedule): release control's lost messages, ended soaks, lifted
  // freezes and closed sync windows are seen within a minute, however long a full pass takes.
  const sweep = () =>
    sweepRollouts({
      open: context.open,
      rollouts: { ...reader, ...rollouts },
      trackers: context.trackers,
      trackQueue,
      clusters: fleetConfig.clusters.map((c) => c.name),
      notify: context.notify,
      clock,
      logger,
      graceSeconds: SWEEP_GRACE_SECONDS,
      chainLeaseSeconds: context.chainLeaseSeconds,
      leases: context.leases,
      release: context.release.engine,
    });
  const identity = preflightIdentity(context);
  // The ECR catch-up, opt-in (`ECR_REPOSITORY_ARNS`): records deliveries as the webhook does, so a pass and
  // a late EventBridge event of one image are one delivery.
  const ecr = config.ecrCatchUp;
  const registries =
    ecr === undefined
      ? undefined
      : {
          images: createEcrImages({
            ...(ecr.endpoint === undefined ? {} : { endpoint: ecr.endpoint }),
            http: {
              requestTimeoutMs: config.awsRequestTimeoutMs,
              connectionTimeoutMs: config.awsConnectTimeoutMs,
            },
          }),
          deliveries: dynamoDeliveryStore(table, config.deliveryTtlSeconds),
          repositoryArns: ecr.repositoryArns,
          maxRepositories: ecr.maxRepositories,
        };
  return async (options = {}) => {
    if (options.sweepOnly === true) return { sweep: await sweep() };
    const git = gitPool.session();
    try {
      const report = await runReconcile({
        fleet: fleetConfig,
        clusters: context.clients,
        git,
        credentials: context.credentials,
        findings,
        memory: dynamoReconcileMemory(table),
        rollouts: {
          ...dynamoRolloutExistence(table),
          listApps: (sha) => reader.listApps(sha),
          decisions: (sha) => reader.decisions(sha),
        },
        pushQueue,
        ...(registries === undefined ? {} : { registries }),
        digest: (message) =>
          postToSlack(context.slack, message).catch((error: unknown) =>
            logger.warn('findings digest not sent', { error: errorMessage(error) }),
          ),
        clock,
        logger,
        renderer: createRenderCache(argocdApis, logger, auditRenders),
        preflightCoverage: () =>
          Promise.all(
            fleetConfig.clusters.map(async ({ name }) =>
              storeCoverage(name, await context.listIn(name, [SECRET_STORES, CLUSTER_SECRET_STORES]), {
                identity,
                probe: (target) => context.secretsManager.probeIdentity?.(target) ?? Promise.resolve(),
              }),
            ),
          ),
        options: {
          graceSeconds: config.missedWebhookGraceSeconds,
          digestMinSeverity: config.digestMinSeverity,
          ...(options.timeBudgetMs === undefined ? {} : { timeBudgetMs: options.timeBudgetMs }),
        },
      });
      // `GET /findings` tells "no findings" from "no pass has run yet" by this item.
      await recordLastPass(table, summarizePass(report)).catch((error: unknown) =>
        logger.warn('last reconcile pass not recorded', { error: errorMessage(error) }),
      );
      const swept = await sweep();
      // run-reconcile logs the pass's summary line; here it is counted.
      countReconcile(metrics, report);
      return { ...report, sweep: swept };
    } finally {
      await git.close();
    }
  };
}
