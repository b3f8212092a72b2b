import { describe, expect, it } from 'vitest';
import type { TrackMessage } from '../../../lib/queue/messages.js';
import { startTracking } from '../../../lib/rollouts/cluster-work-end.js';
import type { ClusterWorkDeps } from '../../../lib/rollouts/work-model.js';

const sha = 'c'.repeat(40);

/** What startTracking uses of a work item's dependencies, the chain claim answering `claimed`. */
function deps(claimed: string | undefined) {
  const sent: { message: TrackMessage; delaySeconds?: number }[] = [];
  const claims: { cluster: string; sha?: string }[] = [];
  const d = {
    clock: { now: () => new Date('2026-12-04T20:00:00Z') },
    chainLeaseSeconds: 120,
    trackIntervalSeconds: 5,
    trackers: {
      claimChain: async (cluster: string, _until: string, _now: Date, s?: string) => {
        claims.push({ cluster, ...(s === undefined ? {} : { sha: s }) });
        return claimed;
      },
    },
    trackQueue: {
      send: async (message: TrackMessage, options?: { delaySeconds?: number }) => {
        sent.push({
          message,
          ...(options?.delaySeconds === undefined ? {} : { delaySeconds: options.delaySeconds }),
        });
      },
      sendBatch: async () => undefined,
    },
  } as unknown as ClusterWorkDeps;
  return { d, sent, claims };
}

describe('startTracking', () => {
  it("names the work item's lease holder in the chain's first poll, which then needs no second read", async () => {
    const { d, sent, claims } = deps('chain-1');
    await startTracking('hub', sha, d, 'delivery-1#0#3f0c');
    expect(claims).toEqual([{ cluster: 'hub', sha }]);
    expect(sent).toEqual([
      {
        message: { type: 'track', cluster: 'hub', attempt: 0, leaseHolders: { [sha]: 'delivery-1#0#3f0c' } },
        delaySeconds: 5,
      },
    ]);
  });

  it('names no holder when the work item held no lease', async () => {
    const { d, sent } = deps('chain-1');
    await startTracking('hub', sha, d);
    expect(sent.map((s) => s.message)).toEqual([{ type: 'track', cluster: 'hub', attempt: 0 }]);
  });

  it('sends nothing when the cluster already has a chain (it polls the new rollout)', async () => {
    const { d, sent, claims } = deps(undefined);
    await startTracking('hub', sha, d, 'delivery-1#0#3f0c');
    expect(claims).toHaveLength(1);
    expect(sent).toEqual([]);
  });
});
