import type { FeedbackEntry, FeedbackKind } from '../feedback/model.js';
import { queryAll, type TableRef } from './dynamo.js';
import { FEEDBACK_SK_PREFIX, rolloutPk } from './keys.js';

type Item = Record<string, unknown>;

const KINDS: ReadonlySet<string> = new Set<FeedbackKind>(['check-run', 'deployment']);

/**
 * The rollout's `feedback`: what each commit status (`STATUS#<context>`), check run and deployment
 * (`FEEDBACK#<kind>#<target>`) shows on the Git host, and the host's last error. Two queries under the
 * rollout, read only by the rollout's API answer (notices never need them).
 */
export async function readFeedback(table: TableRef, sha: string): Promise<FeedbackEntry[]> {
  const [statuses, others] = await Promise.all([
    queryAll(table, rolloutPk(sha), 'STATUS#'),
    queryAll(table, rolloutPk(sha), FEEDBACK_SK_PREFIX),
  ]);
  return [...statuses.map(statusEntry), ...others.flatMap(feedbackEntry)];
}

/** A commit status item keeps what it posted as `state|description|url` (GitLab: the state alone). */
function statusEntry(item: Item): FeedbackEntry {
  const posted = typeof item.posted === 'string' ? (item.posted.split('|')[0] as string) : undefined;
  return {
    kind: 'commit-status',
    target: String(item.sk).slice('STATUS#'.length),
    // A released claim (the post failed) has no `posted`: nothing of this round is on the host yet.
    state: posted ?? 'not posted',
    ...errorOf(item, 'lastError', 'lastErrorAt'),
  };
}

function feedbackEntry(item: Item): FeedbackEntry[] {
  const kind = String(item.kind ?? '');
  if (!KINDS.has(kind) || typeof item.target !== 'string') return [];
  return [
    {
      kind: kind as FeedbackKind,
      target: item.target,
      state: typeof item.state === 'string' ? item.state : 'not posted',
      ...errorOf(item, 'error', 'errorAt'),
    },
  ];
}

function errorOf(item: Item, error: string, at: string): Pick<FeedbackEntry, 'error' | 'errorAt'> {
  if (typeof item[error] !== 'string') return {};
  return {
    error: item[error] as string,
    ...(typeof item[at] === 'string' ? { errorAt: item[at] as string } : {}),
  };
}
