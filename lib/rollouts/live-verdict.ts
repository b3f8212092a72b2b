import type { IndexedObject } from '../matching/match-index.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : [];

/**
 * What the live object says about a push, before anything is patched:
 * - `at-commit`: it already compared (or is syncing) the pushed commit; refreshing again would do nothing;
 * - `superseded`: the pushed ref has moved on to a later commit and the app is live at it already;
 * - `refresh`: it is elsewhere, so it needs the refresh (a rollback to an older commit lands here too).
 *   `head` is set when the ref has moved on meanwhile: the app is then superseded only if that commit's
 *   rollout owns it (the caller asks); otherwise the refresh takes it to the head, which carries this push.
 */
export type LiveVerdict =
  | { readonly kind: 'at-commit'; readonly revision: string }
  | { readonly kind: 'superseded'; readonly head: string; readonly revision?: string }
  | { readonly kind: 'refresh'; readonly revision?: string; readonly head?: string };

export function liveVerdict(object: IndexedObject, sha: string, head: string | undefined): LiveVerdict {
  const revisions = liveRevisions(object);
  if (revisions.includes(sha)) return { kind: 'at-commit', revision: sha };
  const revision = revisions[0];
  const at = revision === undefined ? {} : { revision };
  if (head !== undefined && head !== sha) {
    if (revisions.includes(head)) return { kind: 'superseded', head, revision: head };
    return { kind: 'refresh', ...at, head };
  }
  return { kind: 'refresh', ...at };
}

/** The commits the object is at, or is syncing to: Argo CD's compared and operation revisions, Flux's artifact. */
export function liveRevisions(object: Pick<IndexedObject, 'kind' | 'raw'>): string[] {
  const status = obj(obj(object.raw).status);
  switch (object.kind) {
    case 'Application': {
      const sync = obj(status.sync);
      const op = obj(status.operationState);
      const running = str(op.phase) === 'Running';
      const operation = obj(obj(op.operation).sync);
      return [
        ...[str(sync.revision), ...strings(sync.revisions)].filter((r): r is string => r !== undefined),
        ...(running ? [str(operation.revision), ...strings(operation.revisions)] : []).filter(
          (r): r is string => r !== undefined,
        ),
      ];
    }
    case 'GitRepository': {
      const revision = str(obj(status.artifact).revision);
      if (revision === undefined) return [];
      const at = revision.lastIndexOf(':');
      return [at >= 0 ? revision.slice(at + 1) : revision];
    }
    case 'ApplicationSet':
      return [];
  }
}
