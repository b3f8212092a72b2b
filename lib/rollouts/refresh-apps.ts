import {
  applicationRefreshPatch,
  applicationSetRefreshPatch,
  gitRepositoryRefreshPatch,
} from '../argocd/refresh-patch.js';
import { mapWithConcurrency } from '../concurrency.js';
import { errorMessage } from '../errors.js';
import type { FleetCluster } from '../fleet/gateway.js';
import type { ObjectMatch } from '../matching/match-index.js';
import type { Clock, Logger } from '../ports.js';
import type { SecretCheck } from '../secrets/secret-check.js';
import type { PushEvent } from '../webhook/push-event.js';
import type { FanoutDeps, PreflightVerdict } from './fanout.js';
import { type AppRecord, type AppTarget, STATE_RANK, type StoredApp } from './model.js';
import type { RolloutMeta } from './rollout-store.js';

const BLOCKING: ReadonlySet<string> = new Set(['missing-secret', 'missing-property', 'not-json']);

export interface Outcome {
  readonly target: ObjectMatch['target'];
  readonly state: 'refreshed' | 'blocked' | 'error';
  readonly decision: 'refreshed' | 'refreshed-unknown-files' | 'blocked' | 'error';
  readonly detail: string;
  /** The record to write; absent when an earlier delivery of this commit already refreshed the app. */
  readonly record?: AppRecord;
}

const targetKey = (t: AppTarget) => `${t.cluster}/${t.kind}/${t.namespace}/${t.name}`;

/**
 * Preflight and refresh the matched objects, with bounded concurrency per cluster; one read of what earlier
 * deliveries of this commit recorded, one batched write of what this one did.
 */
export async function refreshAll(
  candidates: readonly ObjectMatch[],
  meta: RolloutMeta,
  event: PushEvent,
  deps: FanoutDeps,
  log: Logger,
): Promise<Outcome[]> {
  // One read of what earlier deliveries of this commit recorded, one batched write of what this one did.
  const existing = new Map((await deps.rollouts.listApps(meta.sha)).map((a) => [targetKey(a), a]));
  const byCluster = new Map<string, ObjectMatch[]>();
  for (const c of candidates)
    byCluster.set(c.target.cluster, [...(byCluster.get(c.target.cluster) ?? []), c]);
  const perCluster = await Promise.all(
    [...byCluster].map(async ([name, matches]) => {
      const cluster = deps.fleet.cluster(name);
      const settled = await mapWithConcurrency(matches, cluster?.concurrency ?? 10, (m) =>
        refreshOne(m, cluster, existing.get(targetKey(m.target)), event, deps),
      );
      return settled.map((s, i): Outcome => {
        if (s.status === 'fulfilled') return s.value;
        const target = (matches[i] as ObjectMatch).target;
        const detail = errorMessage(s.reason);
        log.error('refresh failed unexpectedly', { cluster: name, app: target.name, error: detail });
        return {
          target,
          state: 'error',
          decision: 'error',
          detail,
          record: { ...target, state: 'error', decision: 'error', message: detail },
        };
      });
    }),
  );
  const outcomes = perCluster.flat();
  await deps.rollouts.putApps(
    meta,
    outcomes.flatMap((o) =>
      o.record === undefined
        ? []
        : [{ ...o.record, version: (existing.get(targetKey(o.target))?.version ?? 0) + 1 }],
    ),
  );
  return outcomes;
}

async function refreshOne(
  match: ObjectMatch,
  cluster: FleetCluster | undefined,
  previous: StoredApp | undefined,
  event: PushEvent,
  deps: FanoutDeps,
): Promise<Outcome> {
  const { target } = match;
  const decision = match.decision as 'refreshed' | 'refreshed-unknown-files';
  const now = deps.clock.now();
  const windowMs = (deps.refreshWindowSeconds ?? 60) * 1000;
  // A second delivery of the same commit: not patched again within the window, and never once the app moved on.
  if (
    previous !== undefined &&
    (STATE_RANK[previous.state] > STATE_RANK.refreshed ||
      (previous.refreshedAt !== undefined && now.getTime() - Date.parse(previous.refreshedAt) < windowMs))
  ) {
    return {
      target,
      state: 'refreshed',
      decision,
      detail: 'refreshed by an earlier delivery of this commit',
    };
  }
  const base = { ...target, decision } satisfies Partial<AppRecord>;
  let secrets: readonly SecretCheck[] | undefined;
  if (match.object.kind === 'Application') {
    const verdict = await deps.preflight(match, event).catch(
      (error: unknown): PreflightVerdict => ({
        verdict: 'warn',
        checks: [],
        summary: `preflight failed: ${errorMessage(error)}`,
      }),
    );
    secrets = verdict.checks.length > 0 ? verdict.checks : undefined;
    if (verdict.verdict === 'block') {
      const message = describeBlock(verdict);
      const record: AppRecord = {
        ...base,
        state: 'blocked',
        decision: 'blocked',
        message,
        ...(secrets ? { secrets } : {}),
      };
      return { target, state: 'blocked', decision: 'blocked', detail: message, record };
    }
  }
  const patch = patchFor(match, deps.clock);
  try {
    if (cluster === undefined) throw new Error(`cluster ${target.cluster} is not in the fleet`);
    if (patch !== undefined) await cluster.patch(target, patch);
    const record: AppRecord = {
      ...base,
      state: 'refreshed',
      refreshedAt: now.toISOString(),
      ...(patch === undefined ? { message: 'a hard refresh was already pending' } : {}),
      ...(secrets ? { secrets } : {}),
    };
    return { target, state: 'refreshed', decision, detail: match.reason, record };
  } catch (error) {
    const message = `refresh failed: ${errorMessage(error)}`;
    const record: AppRecord = {
      ...base,
      state: 'error',
      decision: 'error',
      message,
      ...(secrets ? { secrets } : {}),
    };
    return { target, state: 'error', decision: 'error', detail: message, record };
  }
}

function describeBlock(verdict: PreflightVerdict): string {
  const blocking = verdict.checks.filter((c) => c.blocking !== false && BLOCKING.has(c.outcome));
  if (blocking.length === 0) return verdict.summary ?? 'an ExternalSecret reference does not resolve';
  const named = blocking.slice(0, 3).map((c) => {
    const where = [
      c.key === undefined ? undefined : `key ${c.key}`,
      c.property === undefined ? undefined : `property ${c.property}`,
    ]
      .filter((x) => x !== undefined)
      .join(' ');
    return `ExternalSecret ${c.externalSecret}${where === '' ? '' : ` ${where}`}: ${c.outcome}`;
  });
  return `${named.join('; ')}${blocking.length > 3 ? ` (and ${blocking.length - 3} more)` : ''}`;
}

function patchFor(match: ObjectMatch, clock: Clock): object | undefined {
  switch (match.object.kind) {
    case 'Application':
      return applicationRefreshPatch(match.object.value, { hydrate: match.hydrate });
    case 'ApplicationSet':
      return applicationSetRefreshPatch();
    case 'GitRepository':
      return gitRepositoryRefreshPatch(clock);
  }
}
