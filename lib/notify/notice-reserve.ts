import type { SlackNotice, SlackNoticeStore, SlackNoticeUpdate } from './notice-store.js';

export interface Reservation<P> {
  /** The state the plan was made from. */
  readonly base: SlackNotice | undefined;
  /** The state written before sending, as if every call will succeed. */
  readonly next: SlackNoticeUpdate;
  readonly plan: P;
  /** The stored version of `next`. */
  readonly version: number;
}

/** What to send given the stored state, or undefined when there is nothing to send. */
export type Planner<P> = (
  current: SlackNotice | undefined,
) => { next: SlackNoticeUpdate; plan: P } | undefined;

const ATTEMPTS = 3;

/**
 * Reserve before sending: the planned state is saved conditional on the version read, so of two
 * concurrent notifiers only one sends a given update or reply. The loser re-reads and plans again
 * (usually finding nothing left to send). `lost` when it kept losing.
 */
export async function reserveNotice<P>(
  store: SlackNoticeStore,
  sha: string,
  channel: string,
  current: SlackNotice | undefined,
  planner: Planner<P>,
): Promise<Reservation<P> | 'nothing' | 'lost'> {
  let base = current;
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const planned = planner(base);
    if (planned === undefined) return 'nothing';
    const expected = base?.version ?? 0;
    if (await store.save(sha, channel, planned.next, expected)) {
      return { base, next: planned.next, plan: planned.plan, version: expected + 1 };
    }
    base = await store.get(sha, channel);
  }
  return 'lost';
}

/** Puts back what was reserved but not sent, so a later notice tries again. */
export async function settleNotice(
  store: SlackNoticeStore,
  sha: string,
  channel: string,
  reserved: Reservation<unknown>,
  actual: SlackNoticeUpdate,
): Promise<boolean> {
  const same =
    actual.ts === reserved.next.ts &&
    actual.channelId === reserved.next.channelId &&
    actual.contentHash === reserved.next.contentHash &&
    actual.progress === reserved.next.progress &&
    actual.repliedApps.length === reserved.next.repliedApps.length;
  return same ? true : store.save(sha, channel, actual, reserved.version);
}

/** A notice state being worked on, where a field may be cleared by setting it to undefined. */
export type NoticeDraft = { -readonly [K in keyof SlackNoticeUpdate]?: SlackNoticeUpdate[K] | undefined } & {
  repliedApps: readonly string[];
};

const UPDATE_FIELDS = ['ts', 'channelId', 'contentHash', 'progress'] as const;

/** The fields a save writes, dropping cleared ones (and the version bookkeeping of a read notice). */
export function withoutUndefined(draft: NoticeDraft): SlackNoticeUpdate {
  const kept = UPDATE_FIELDS.filter((field) => draft[field] !== undefined).map((field) => [
    field,
    draft[field],
  ]);
  return { ...Object.fromEntries(kept), repliedApps: [...draft.repliedApps] } as SlackNoticeUpdate;
}
