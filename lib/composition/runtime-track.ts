import { EXTERNAL_SECRETS } from '../kubernetes/resources.js';
import { postSyncCheck } from '../rollouts/post-sync-check.js';
import { liveKey, trackCluster } from '../rollouts/track.js';
import { dynamoAppTransitions } from '../store/app-transitions.js';
import { type FleetBuilder, type FleetContext, type FleetFunctions, fleetContext } from './runtime-fleet.js';

/** The track Lambda's part of the fleet (`functions/track.ts`): no Git, no preflight, no audit. */
export const trackFunctions: FleetBuilder = async (shared) => ({
  track: createTrack(await fleetContext(shared)),
});

/** Follow each sync to its end, record every state change, keep the Slack message current. */
export function createTrack(context: FleetContext): FleetFunctions['track'] {
  const { config, logger, clock, trackQueue, fleetConfig, gateway, rollouts, reader } = context;
  const transitions = dynamoAppTransitions(context.table);
  const onEnd = postSyncCheck({
    clusters: fleetConfig.clusters,
    externalSecrets: (cluster, namespace) => context.listIn(cluster, [EXTERNAL_SECRETS], namespace),
    logger,
  });
  // The polls of one SQS batch run side by side, mostly over the same rollouts and ref: each read of a
  // summary or of a ref's pushes that another poll already has in flight shares that request.
  const summary = shareInFlight((sha: string) => reader.summary(sha));
  const recent = shareInFlight((repoKey: string, ref: string) => context.refPushes.recent(repoKey, ref));
  return async (message) => {
    await trackCluster(message, {
      rollouts: { ...reader, ...rollouts, ...transitions, summary },
      leases: context.leases,
      trackers: context.trackers,
      refPushes: { recent },
      live: {
        async listTargets(cluster, kinds) {
          const target = gateway.cluster(cluster);
          if (target === undefined) throw new Error(`cluster ${cluster} is not in the fleet`);
          const objects = new Map<string, unknown>();
          for (const kind of kinds) {
            for (const raw of await target.list(kind, 'track')) {
              const meta = (raw as { metadata?: { namespace?: string; name?: string } }).metadata;
              objects.set(liveKey(kind, meta?.namespace ?? '', meta?.name ?? ''), raw);
            }
          }
          return objects;
        },
      },
      onEnd,
      notify: context.notify,
      gate: (sha, summary) => context.release.engine.advanceQuietly(sha, summary),
      queue: trackQueue,
      clock,
      logger,
      intervalSeconds: config.trackIntervalSeconds,
      maxIntervalSeconds: config.trackMaxIntervalSeconds,
      chainLeaseSeconds: context.chainLeaseSeconds,
    });
  };
}

/** `read`, with calls for the same arguments while one is in flight sharing it (never a settled result). */
function shareInFlight<A extends string[], T>(read: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
  const pending = new Map<string, Promise<T>>();
  return (...args) => {
    const key = args.join('\n');
    const running = pending.get(key);
    if (running !== undefined) return running;
    const started = read(...args).finally(() => pending.delete(key));
    pending.set(key, started);
    return started;
  };
}
