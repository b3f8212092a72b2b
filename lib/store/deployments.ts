import type { DeploymentLedger } from '../deployments/deployment-notice.js';
import type { FeedbackEntry } from '../feedback/model.js';
import { GetCommand, QueryCommand, UpdateCommand } from './document-client.js';
import { epochSeconds, isConditionFailure, type TableRef } from './dynamo.js';
import { feedbackSk, rolloutPk } from './keys.js';

const KIND = 'deployment';

/**
 * The deployment of each environment of a commit, under the rollout (`FEEDBACK#deployment#<environment>`):
 * `kind`, `target` (the environment), `state` (what the host shows) and `error`/`errorAt` as a
 * FeedbackEntry, plus `deploymentId`, `host`, the create claim (`creating`) and the status claim
 * (`posted`, `rank`). Both claims are conditional writes: one creator, one poster of each state.
 */
export function dynamoDeployments(
  table: TableRef,
  ttlSeconds: number,
  /** A create claim older than this is taken to be a crashed caller's and may be taken again. */
  createClaimSeconds = 60,
): DeploymentLedger & {
  /** The deployment entries of a rollout (the API's `feedback`), by environment. */
  entries(sha: string): Promise<FeedbackEntry[]>;
  /** The host's deployment id kept for an environment, if created. */
  deploymentId(sha: string, environment: string): Promise<string | undefined>;
} {
  const key = (sha: string, environment: string) => ({
    pk: rolloutPk(sha),
    sk: feedbackSk(KIND, environment),
  });
  const update = (input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>) =>
    table.doc.send(new UpdateCommand({ TableName: table.tableName, ...input }));
  const unlessTaken = (thrown: unknown) => {
    if (!isConditionFailure(thrown)) throw thrown;
  };
  const names = { '#state': 'state', '#rank': 'rank', '#error': 'error' };
  return {
    async claimCreate(sha, environment, host) {
      const now = new Date();
      const claim = `${now.toISOString()}#${Math.random().toString(36).slice(2, 10)}`;
      const stale = new Date(now.getTime() - createClaimSeconds * 1000).toISOString();
      try {
        await update({
          Key: key(sha, environment),
          UpdateExpression:
            'SET #type = :type, #kind = :kind, #target = :target, #host = :host, #state = if_not_exists(#state, :creating), creating = :claim, expiresAt = :expires',
          ConditionExpression:
            'attribute_not_exists(deploymentId) AND (attribute_not_exists(creating) OR creating < :stale)',
          ExpressionAttributeNames: {
            '#type': 'type',
            '#kind': 'kind',
            '#target': 'target',
            '#host': 'host',
            '#state': 'state',
          },
          ExpressionAttributeValues: {
            ':type': 'feedback',
            ':kind': KIND,
            ':target': environment,
            ':host': host,
            ':creating': 'creating',
            ':claim': claim,
            ':stale': stale,
            ':expires': epochSeconds(now) + ttlSeconds,
          },
        });
        return claim;
      } catch (error) {
        if (isConditionFailure(error)) return undefined;
        throw error;
      }
    },
    async settleCreate(sha, environment, claim, outcome) {
      const common = { Key: key(sha, environment), ConditionExpression: 'creating = :claim' };
      if ('error' in outcome) {
        await update({
          ...common,
          UpdateExpression: 'SET #state = :none, #error = :error, errorAt = :at REMOVE creating',
          ExpressionAttributeNames: { '#state': 'state', '#error': 'error' },
          ExpressionAttributeValues: {
            ':claim': claim,
            ':none': 'not-created',
            ':error': outcome.error,
            ':at': new Date().toISOString(),
          },
        }).catch(unlessTaken);
        return;
      }
      await update({
        ...common,
        UpdateExpression:
          'SET deploymentId = :id, #state = :state, posted = :state, #rank = :rank REMOVE creating, #error, errorAt',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: {
          ':claim': claim,
          ':id': outcome.deploymentId,
          ':state': outcome.state,
          ':rank': outcome.rank,
        },
      }).catch(unlessTaken);
    },
    async claimStatus(sha, environment, state, rank) {
      const { Item } = await table.doc.send(
        new GetCommand({ TableName: table.tableName, Key: key(sha, environment), ConsistentRead: true }),
      );
      if (typeof Item?.deploymentId !== 'string') return 'not-created';
      try {
        await update({
          Key: key(sha, environment),
          UpdateExpression: 'SET posted = :state, #rank = :rank, claimedAt = :at',
          ConditionExpression:
            'attribute_exists(deploymentId) AND posted <> :state AND #state <> :state AND (attribute_not_exists(#rank) OR #rank <= :rank)',
          ExpressionAttributeNames: { '#state': 'state', '#rank': 'rank' },
          ExpressionAttributeValues: { ':state': state, ':rank': rank, ':at': new Date().toISOString() },
        });
        return { deploymentId: Item.deploymentId };
      } catch (error) {
        if (isConditionFailure(error)) return 'unchanged';
        throw error;
      }
    },
    async settleStatus(sha, environment, state, error) {
      if (error === undefined) {
        await update({
          Key: key(sha, environment),
          UpdateExpression: 'SET #state = :state REMOVE #error, errorAt',
          ConditionExpression: 'posted = :state',
          ExpressionAttributeNames: { '#state': 'state', '#error': 'error' },
          ExpressionAttributeValues: { ':state': state },
        }).catch(unlessTaken);
        return;
      }
      // Unclaimed: the host still shows `state`'s predecessor, and any view may claim again.
      await update({
        Key: key(sha, environment),
        UpdateExpression: 'SET posted = #state, #error = :error, errorAt = :at REMOVE #rank',
        ConditionExpression: 'posted = :claimed',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':claimed': state, ':error': error, ':at': new Date().toISOString() },
      }).catch(unlessTaken);
    },
    async entries(sha) {
      const { Items = [] } = await table.doc.send(
        new QueryCommand({
          TableName: table.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': rolloutPk(sha), ':prefix': feedbackSk(KIND, '') },
          ConsistentRead: true,
        }),
      );
      return Items.map((item) => ({
        kind: KIND,
        target: String(item.target),
        state: String(item.state),
        ...(typeof item.error === 'string' ? { error: item.error } : {}),
        ...(typeof item.errorAt === 'string' ? { errorAt: item.errorAt } : {}),
      }));
    },
    async deploymentId(sha, environment) {
      const { Item } = await table.doc.send(
        new GetCommand({ TableName: table.tableName, Key: key(sha, environment), ConsistentRead: true }),
      );
      return typeof Item?.deploymentId === 'string' ? Item.deploymentId : undefined;
    },
  };
}
