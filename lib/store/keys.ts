import type { AppTarget } from '../rollouts/app-model.js';

/**
 * Key layout of the single table (defined in infra/dynamodb-table.yml).
 *
 * | item                  | pk                          | sk                                   | gsi1pk / gsi1sk (gsi4 where named)   |
 * | --------------------- | --------------------------- | ------------------------------------ | ------------------------------------ |
 * | delivery (TTL)        | DELIVERY#<provider>#<id>    | #                                    |                                      |
 * | rollout summary       | ROLLOUT#<sha>               | #SUMMARY                             |                                      |
 * | rollout's list entry  | ROLLOUT#<sha>               | #LISTED                              | SHA#<sha[0..4]> / <sha>              |
 * | app in a rollout      | ROLLOUT#<sha>               | APP#<cluster>#<kind>#<ns>#<name>     | gsi4: HISTORY#<cluster>#<ns>#<name> / <time>#<sha> |
 * | decisions (chunks)    | ROLLOUT#<sha>               | DECISIONS#<time>#<delivery>#<try>#<n> |                                      |
 * | Slack message ref     | ROLLOUT#<sha>               | SLACK#<channel>                      |                                      |
 * | finding               | FINDINGS                    | <cluster>#<rule>#<ns>#<name>#<subject> |                                    |
 * | reconcile memory      | RECONCILE                   | <kind>#…                             |                                      |
 * | tracker chain lease   | TRACKER#<cluster>           | #CHAIN (registrations: REG#<sha> attributes) |                              |
 * | old registration      | TRACKER#<cluster>           | ROLLOUT#<sha> (read and dropped only) |                                     |
 * | open rollout          | OPEN                        | <sha>                                |                                      |
 * | push of a ref (TTL)   | REF#<repo key>#<ref>        | <receivedAt>#<sha>                   |                                      |
 * | queue payload (TTL)   | PAYLOAD#<sha256 of body>    | CHUNK#<n>                            |                                      |
 * | commit status posted  | ROLLOUT#<sha>               | STATUS#<context>                     |                                      |
 * | feedback to a host    | ROLLOUT#<sha>               | FEEDBACK#<kind>#<target>             |                                      |
 * | freeze (TTL)          | FREEZES                     | FREEZE#<id>                          |                                      |
 *
 * A rollout's list entry also carries gsi2 (`ROLLOUTS` / `<receivedAt>#<sha>`: every rollout, newest first)
 * and gsi3 (`ROLLOUTS#<repo>` / the same: one repository's); gsi1 on it resolves a short SHA by prefix. The
 * summary is in no index, so its updates write no index entry (rollout-listing.ts); summaries written before
 * entries existed carry these keys themselves.
 * App items carry their history keys on gsi4 (keys only: a state change writes no index entry; items written
 * before gsi4 existed carry the same keys on gsi1, read after gsi4's: lib/store/app-history.ts), gsi2
 * (`PROBLEMS#<sha>` / `<state order>#<sk>`) while their state is a problem, and gsi3 (`WARNED#<sha>` /
 * `<sk>`) while the preflight warned: sparse indexes a notice reads (lib/store/problem-apps.ts).
 * Release control's state of a rollout (`waves`, `paused`, `aborted`, `halted`, `actions`) sits on its summary.
 */
export const SUMMARY_SK = '#SUMMARY';
export const LISTING_SK = '#LISTED';
export const DELIVERY_SK = '#';
export const GSI1 = 'gsi1';
export const GSI2 = 'gsi2';
export const GSI3 = 'gsi3';
export const GSI4 = 'gsi4';
export const ROLLOUTS_PK = 'ROLLOUTS';
/** Hex characters of a SHA that key its prefix partition: a 7-character short SHA always has them. */
export const SHA_PREFIX_KEY_LENGTH = 4;

export function deliveryPk(provider: string, deliveryId: string): string {
  return `DELIVERY#${provider}#${deliveryId}`;
}

export function rolloutPk(sha: string): string {
  return `ROLLOUT#${sha}`;
}

export function appSk(target: AppTarget): string {
  return `APP#${target.cluster}#${target.kind}#${target.namespace}#${target.name}`;
}

export function historyPk(target: Pick<AppTarget, 'cluster' | 'namespace' | 'name'>): string {
  return `HISTORY#${target.cluster}#${target.namespace}#${target.name}`;
}

export function historySk(time: string, sha: string): string {
  return `${time}#${sha}`;
}

/** One fan-out's decisions, chunked; `batch` names the delivery and attempt, so a redelivery overwrites. */
export function decisionsSk(batch: string, chunk: number): string {
  return `DECISIONS#${batch}#${String(chunk).padStart(4, '0')}`;
}

/** The lease of the one work item refreshing `cluster` for a commit right now. */
export function clusterLeaseSk(cluster: string): string {
  return `LEASE#${cluster}`;
}

export function slackSk(channel: string): string {
  return `SLACK#${channel}`;
}

export const FINDINGS_PK = 'FINDINGS';
export const RECONCILE_PK = 'RECONCILE';

export function shaPrefixPk(sha: string): string {
  return `SHA#${sha.slice(0, SHA_PREFIX_KEY_LENGTH)}`;
}

export function repoRolloutsPk(repo: string): string {
  return `${ROLLOUTS_PK}#${repo}`;
}

/** The index attributes of a rollout's list entry: newest-first lists (all, per repository) and short SHAs. */
export function summaryIndexFields(rollout: { sha: string; repo: string; receivedAt: string }) {
  const newest = `${rollout.receivedAt}#${rollout.sha}`;
  return {
    gsi1pk: shaPrefixPk(rollout.sha),
    gsi1sk: rollout.sha,
    gsi2pk: ROLLOUTS_PK,
    gsi2sk: newest,
    gsi3pk: repoRolloutsPk(rollout.repo),
    gsi3sk: newest,
  };
}

export function statusSk(context: string): string {
  return `STATUS#${context}`;
}

export function trackerPk(cluster: string): string {
  return `TRACKER#${cluster}`;
}

export const TRACKER_CHAIN_SK = '#CHAIN';
export const TRACKER_ROLLOUT_PREFIX = 'ROLLOUT#';
export const OPEN_PK = 'OPEN';

export function refPk(repoKey: string, ref: string): string {
  return `REF#${repoKey}#${ref}`;
}

/** The prefix of every app item of one cluster in a rollout. */
export function clusterAppsPrefix(cluster: string): string {
  return `APP#${cluster}#`;
}

export function payloadPk(sha256: string): string {
  return `PAYLOAD#${sha256}`;
}

export function payloadChunkSk(chunk: number): string {
  return `CHUNK#${String(chunk).padStart(4, '0')}`;
}

/** Every freeze in one partition: the fleet holds a handful at a time, and every work item reads them all. */
export const FREEZES_PK = 'FREEZES';
export const FREEZE_SK_PREFIX = 'FREEZE#';

export function freezeSk(id: string): string {
  return `${FREEZE_SK_PREFIX}${id}`;
}

/** What the orchestrator keeps of one thing it shows on the Git host (a check run, a deployment). */
export function feedbackSk(kind: string, target: string): string {
  return `FEEDBACK#${kind}#${target}`;
}

export const FEEDBACK_SK_PREFIX = 'FEEDBACK#';
