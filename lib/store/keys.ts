import type { AppTarget } from '../rollouts/model.js';

/**
 * Key layout of the single table (defined in infra/dynamodb-table.yml).
 *
 * | item                  | pk                          | sk                                   | gsi1pk / gsi1sk                      |
 * | --------------------- | --------------------------- | ------------------------------------ | ------------------------------------ |
 * | delivery (TTL)        | DELIVERY#<provider>#<id>    | #                                    |                                      |
 * | rollout summary       | ROLLOUT#<sha>               | #SUMMARY                             |                                      |
 * | app in a rollout      | ROLLOUT#<sha>               | APP#<cluster>#<kind>#<ns>#<name>     | HISTORY#<cluster>#<ns>#<name> / <time>#<sha> |
 * | decisions (chunks)    | ROLLOUT#<sha>               | DECISIONS#<time>#<delivery>#<try>#<n> |                                      |
 * | Slack message ref     | ROLLOUT#<sha>               | SLACK#<channel>                      |                                      |
 * | finding               | FINDINGS                    | <cluster>#<rule>#<ns>#<name>#<subject> |                                    |
 * | reconcile memory      | RECONCILE                   | <kind>#…                             |                                      |
 * | tracker registration  | TRACKER#<cluster>           | ROLLOUT#<sha>                        |                                      |
 * | tracker chain lease   | TRACKER#<cluster>           | #CHAIN                               |                                      |
 * | open rollout          | OPEN                        | <sha>                                |                                      |
 * | push of a ref (TTL)   | REF#<repo key>#<ref>        | <receivedAt>#<sha>                   |                                      |
 */
export const SUMMARY_SK = '#SUMMARY';
export const DELIVERY_SK = '#';
export const GSI1 = 'gsi1';

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

export function slackSk(channel: string): string {
  return `SLACK#${channel}`;
}

export const FINDINGS_PK = 'FINDINGS';
export const RECONCILE_PK = 'RECONCILE';

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
