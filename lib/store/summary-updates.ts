import type { ClusterDone } from '../rollouts/ports/app-state.js';
import { clustersDoneUpdate } from './summary-caps.js';
import { type ClusterView, rolloutView } from './summary-views.js';

// The rollout summary's status updates as DynamoDB expressions, built from what was read (no I/O):
// rollout-summary.ts sends them and decides what a failed condition means.

type Item = Record<string, unknown>;

/** A cluster's new view, and with a work item's end of the cluster (`done`) its progress to set with it. */
export interface Viewed {
  readonly view: ClusterView;
  readonly done?: ClusterDone;
}

/** The parts of an UpdateItem besides its table and key. */
export interface SummaryUpdate {
  readonly UpdateExpression: string;
  readonly ConditionExpression: string;
  readonly ExpressionAttributeNames: Record<string, string>;
  readonly ExpressionAttributeValues: Record<string, unknown>;
}

const CONTROL_FLAGS = ['paused', 'halted', 'aborted'] as const;

/**
 * The single write of gathered views from the summary `read`: the views, the status they make with the
 * stored ones, and the progress and decision counts of each cluster with `done`, on condition that no
 * other view, cluster progress, error or release control flag changed since the read. Undefined when it
 * cannot be one write: no item or no `views` map, a view not newer than the stored one, or an item without
 * the maps the progress goes in (the caller's two-write way).
 */
export function viewsAndStatusUpdate(
  read: Item | undefined,
  views: readonly { readonly cluster: string; readonly view: Viewed }[],
): { readonly update: SummaryUpdate; readonly status: string } | undefined {
  const stored = read?.views as Record<string, ClusterView> | undefined;
  if (read === undefined || stored === undefined) return undefined;
  if (views.some(({ cluster, view }) => stored[cluster] !== undefined && stored[cluster].v >= view.view.v))
    return undefined;
  // Each view's placeholders (`#c<at>`) are the ones its cluster's progress update also names.
  const at = (i: number) => (i === 0 ? '' : String(i));
  const ends = views.flatMap(({ cluster, view: { done } }, i) =>
    done === undefined ? [] : [{ cluster, at: at(i), decisions: done.decisions }],
  );
  const progress = ends.length === 0 ? undefined : clustersDoneUpdate(read, ends);
  if (progress === null) return undefined;
  const merged = {
    ...stored,
    ...Object.fromEntries(views.map(({ cluster, view }) => [cluster, view.view])),
  };
  const next = rolloutView({ ...read, ...progress?.after, views: merged });
  const values: Item = {
    ':status': next.status,
    ':counts': next.counts,
    ':v': next.version,
    ':zero': 0,
    ':one': 1,
    ...(next.finishedAt ? { ':f': next.finishedAt } : {}),
  };
  const names: Record<string, string> = { '#views': 'views', '#cv': 'v', '#status': 'status' };
  views.forEach(({ cluster, view: { view } }, i) => {
    names[`#c${at(i)}`] = cluster;
    values[`:view${at(i)}`] = view;
    values[`:cv${at(i)}`] = view.v;
  });
  const unchanged = (field: string, placeholder: string) => {
    if (read[field] === undefined) return `attribute_not_exists(${field})`;
    values[placeholder] = read[field];
    return `${field} = ${placeholder}`;
  };
  const removed = [...(next.finishedAt ? [] : ['finishedAt']), ...(progress?.remove ?? [])];
  const sets = views.map((_, i) => `#views.#c${at(i)} = :view${at(i)}`).join(', ');
  const update: SummaryUpdate = {
    UpdateExpression: `SET ${sets}, viewsVersion = if_not_exists(viewsVersion, :zero) + :one, #status = :status, counts = :counts, appsVersion = :v${next.finishedAt ? ', finishedAt = :f' : ''}${progress?.set ?? ''}${removed.length > 0 ? ` REMOVE ${removed.join(', ')}` : ''}`,
    ConditionExpression: [
      'attribute_exists(pk)',
      ...views.map(
        (_, i) => `(attribute_not_exists(#views.#c${at(i)}) OR #views.#c${at(i)}.#cv < :cv${at(i)})`,
      ),
      unchanged('viewsVersion', ':readViews'),
      unchanged('errorsVersion', ':readErrors'),
      // The status says what release control's flags make it: they too as read (the read may be a kept one).
      ...CONTROL_FLAGS.map((flag) => unchanged(flag, `:read_${flag}`)),
    ].join(' AND '),
    ExpressionAttributeNames: { ...names, ...progress?.names },
    ExpressionAttributeValues: { ...values, ...progress?.values },
  };
  return { update, status: next.status };
}

/**
 * The two-write way's second write: the status the stored views make (`before`, as the first write left
 * the item), unless a write at least as new is there. An equal sum is the same view; it may differ in
 * status only for a rollout with no apps yet.
 */
export function statusUpdate(before: Item): { readonly update: SummaryUpdate; readonly status: string } {
  const view = rolloutView(before);
  return {
    update: {
      UpdateExpression: `SET #status = :status, counts = :counts, appsVersion = :v${view.finishedAt ? ', finishedAt = :f' : ' REMOVE finishedAt'}`,
      ConditionExpression:
        'attribute_exists(pk) AND (attribute_not_exists(appsVersion) OR appsVersion < :v OR (appsVersion = :v AND #status <> :status))',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':status': view.status,
        ':counts': view.counts,
        ':v': view.version,
        ...(view.finishedAt ? { ':f': view.finishedAt } : {}),
      },
    },
    status: view.status,
  };
}
