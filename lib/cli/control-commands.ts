import type { ReadApi, ReadApiAnswer } from './read-api.js';
import { type CommandIo, failed } from './read-commands.js';
import { cell, formatTable } from './table.js';

type Json = Record<string, unknown>;

export type RolloutAction = 'pause' | 'resume' | 'abort' | 'retry';

const DONE: Record<RolloutAction, string> = {
  pause: 'paused',
  resume: 'resumed',
  abort: 'aborted',
  retry: 'retried',
};

/** Which apps `retry` takes: `--cluster C`, `--app namespace/name` or `--app name`. */
export interface RetryTarget {
  readonly cluster?: string | undefined;
  readonly app?: string | undefined;
}

function retryBody({ cluster, app }: RetryTarget): Json | undefined {
  const slash = app?.indexOf('/') ?? -1;
  const body: Json = {
    ...(cluster === undefined ? {} : { cluster }),
    ...(app === undefined
      ? {}
      : slash < 0
        ? { name: app }
        : { namespace: app.slice(0, slash), name: app.slice(slash + 1) }),
  };
  return Object.keys(body).length === 0 ? undefined : body;
}

/** `gitops-sync pause | resume [--skip-failed] | abort | retry <sha>`: one line with the rollout's new status. */
export async function runRolloutAction(
  api: ReadApi,
  action: RolloutAction,
  sha: string,
  options: { readonly skipFailed?: boolean; readonly retry?: RetryTarget },
  { out, err }: CommandIo,
): Promise<number> {
  const body =
    action === 'resume' && options.skipFailed === true
      ? { skipFailed: true }
      : action === 'retry'
        ? retryBody(options.retry ?? {})
        : undefined;
  const answer = await api.post(`/rollouts/${encodeURIComponent(sha)}/${action}`, body);
  if (answer.status !== 200) return failed(answer, err, `${action} ${sha}`);
  const rollout = answer.body as Json;
  out(`${DONE[action]} ${cell(rollout.sha ?? sha).slice(0, 12)}: status ${cell(rollout.status)}`);
  return 0;
}

export interface FreezeRequest {
  readonly repo?: string | undefined;
  readonly cluster?: string | undefined;
  readonly reason: string;
  readonly until?: string | undefined;
}

const scopeOf = (f: Json) =>
  [
    f.repo === undefined ? '' : `repo ${cell(f.repo)}`,
    f.cluster === undefined ? '' : `cluster ${cell(f.cluster)}`,
  ]
    .filter(Boolean)
    .join(', ') || 'the whole fleet';

/** `gitops-sync freeze`: `POST /freezes`, then the new freeze's id and scope. */
export async function runFreeze(
  api: ReadApi,
  request: FreezeRequest,
  { out, err }: CommandIo,
): Promise<number> {
  const body = Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined));
  const answer = await api.post('/freezes', body);
  if (answer.status !== 201 && answer.status !== 200) return failed(answer, err, 'freeze');
  const freeze = { ...body, ...(answer.body as Json) };
  const until = freeze.until === undefined ? '' : ` until ${cell(freeze.until)}`;
  out(`frozen ${cell(freeze.id)}: ${scopeOf(freeze)}${until} (${cell(freeze.reason, 200)})`);
  return 0;
}

/** `gitops-sync freezes`: one row per freeze in force. */
export async function printFreezes(api: ReadApi, { out, err }: CommandIo): Promise<number> {
  const answer = await api.get('/freezes');
  if (answer.status !== 200) return failed(answer, err, 'freezes');
  const items = (answer.body as { items?: Json[] }).items ?? [];
  if (items.length === 0) {
    out('  (no freezes)');
    return 0;
  }
  const rows = items.map((f) => [
    cell(f.id),
    scopeOf(f),
    cell(f.until),
    cell(f.by, 60),
    cell(f.at),
    cell(f.reason),
  ]);
  for (const line of formatTable(['ID', 'SCOPE', 'UNTIL', 'BY', 'AT', 'REASON'], rows)) out(line);
  return 0;
}

/** `gitops-sync unfreeze <id>`: `DELETE /freezes/{id}` (204). */
export async function runUnfreeze(api: ReadApi, id: string, io: CommandIo): Promise<number> {
  return oneLine(
    await api.delete(`/freezes/${encodeURIComponent(id)}`),
    `unfreeze ${id}`,
    `unfrozen ${id}`,
    io,
  );
}

/** `gitops-sync unpin [--repo R]`: `POST /unpin`, every followed revision restored. */
export async function runUnpin(api: ReadApi, repo: string | undefined, io: CommandIo): Promise<number> {
  const answer = await api.post('/unpin', repo === undefined ? {} : { repo });
  const counted = (answer.body as Json | undefined)?.unpinned;
  const count = typeof counted === 'number' ? ` (${counted} app${counted === 1 ? '' : 's'})` : '';
  return oneLine(answer, 'unpin', `unpinned ${repo ?? 'every repository'}${count}`, io);
}

function oneLine(answer: ReadApiAnswer, what: string, done: string, { out, err }: CommandIo): number {
  if (answer.status < 200 || answer.status >= 300) return failed(answer, err, what);
  out(done);
  return 0;
}
