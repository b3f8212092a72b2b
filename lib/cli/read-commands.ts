import { SEVERITIES } from '../audit/types.js';
import type { ReadApi } from './read-api.js';
import { cell, formatTable } from './table.js';

type Json = Record<string, unknown>;
type Print = (line: string) => void;

/** Where a command prints: tables on `out`, failures on `err`. */
export interface CommandIo {
  readonly out: Print;
  readonly err: Print;
}

interface AppRow {
  readonly cluster?: string;
  readonly kind?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly state?: string;
  readonly destination?: string | { readonly cluster?: string; readonly name?: string };
  readonly message?: string;
  readonly durationSeconds?: number;
  readonly wave?: string;
}

/** `gitops-sync rollout <sha>`: the rollout's summary line, then one row per app, as the demo prints. */
export async function printRollout(api: ReadApi, sha: string, { out, err }: CommandIo): Promise<number> {
  const answer = await api.get(`/rollouts/${encodeURIComponent(sha)}`);
  if (answer.status !== 200) return failed(answer, err, `rollout ${sha}`);
  const rollout = answer.body as Json & { apps?: AppRow[] };
  const apps = [...(rollout.apps ?? [])].sort((a, b) =>
    `${a.cluster}/${a.name}`.localeCompare(`${b.cluster}/${b.name}`),
  );
  out(
    `rollout ${cell(rollout.sha)}  ${cell(rollout.repo)} ${cell(rollout.ref)}  status ${cell(rollout.status)}  trigger ${cell(rollout.trigger)}  received ${cell(rollout.receivedAt)}`,
  );
  if (apps.length === 0) {
    out('  (no app matched this push)');
    printSections(rollout, out);
    return 0;
  }
  const withDestination = apps.some((a) => a.destination !== undefined);
  const withWave = apps.some((a) => a.wave !== undefined);
  const headers = [
    ...(withWave ? ['WAVE'] : []),
    'CLUSTER',
    'OBJECT',
    ...(withDestination ? ['DESTINATION'] : []),
    'STATE',
    'DETAIL',
  ];
  const rows = apps.map((a) => [
    ...(withWave ? [cell(a.wave)] : []),
    cell(a.cluster),
    `${cell(a.kind)}/${cell(a.name)}`,
    ...(withDestination ? [destinationOf(a.destination)] : []),
    cell(a.state),
    cell(
      [a.durationSeconds === undefined ? '' : `${a.durationSeconds}s`, a.message ?? '']
        .filter(Boolean)
        .join('  '),
    ),
  ]);
  for (const line of formatTable(headers, rows)) out(line);
  out(`counts: ${countsOf(apps.map((a) => a.state ?? 'unknown'))}`);
  printSections(rollout, out);
  return 0;
}

/** The rollout's `waves`, `actions` and `ungated` (SPEC "HTTP contract"), each only when present. */
function printSections(rollout: Json, out: Print): void {
  const section = (title: string, value: unknown, headers: string[], row: (item: Json) => string[]) => {
    if (!Array.isArray(value) || value.length === 0) return;
    out(`${title}:`);
    for (const line of formatTable(headers, (value as Json[]).map(row))) out(line);
  };
  section('waves', rollout.waves, ['WAVE', 'STATE', 'CLUSTERS', 'OPENED', 'DONE'], (w) => [
    cell(w.name),
    cell(w.state),
    cell(Array.isArray(w.clusters) ? w.clusters.join(',') : w.clusters, 60),
    cell(w.openedAt),
    cell(w.doneAt),
  ]);
  section('actions', rollout.actions, ['ACTION', 'BY', 'AT', 'DETAIL'], (a) => [
    cell(a.action),
    cell(a.by, 80),
    cell(a.at),
    cell(typeof a.detail === 'object' && a.detail !== null ? JSON.stringify(a.detail) : a.detail),
  ]);
  section(
    'ungated (Argo CD polls Git itself: a hold there is not guaranteed)',
    rollout.ungated,
    ['CLUSTER', 'NAMESPACE', 'REASON'],
    (u) => [cell(u.cluster), cell(u.namespace), cell(u.reason)],
  );
}

/** `gitops-sync rollouts [--repo R] [--ref REF]`: newest first, one page, with the next page's command. */
export async function printRollouts(
  api: ReadApi,
  query: Readonly<Record<'repo' | 'ref' | 'limit' | 'cursor', string | undefined>>,
  { out, err }: CommandIo,
): Promise<number> {
  const answer = await api.get('/rollouts', query);
  if (answer.status !== 200) return failed(answer, err, 'rollouts');
  const body = answer.body as { items?: Json[]; cursor?: string; nextCursor?: string | null };
  const items = body.items ?? [];
  if (items.length === 0) out('  (no rollouts)');
  else {
    const rows = items.map((r) => [
      cell(r.sha).slice(0, 12),
      cell(r.status),
      cell(r.repo, 60),
      cell(r.ref, 40),
      cell(r.receivedAt),
      summaryOf(r),
    ]);
    for (const line of formatTable(['SHA', 'STATUS', 'REPO', 'REF', 'RECEIVED', 'APPS'], rows)) out(line);
  }
  const next = body.cursor ?? body.nextCursor ?? undefined;
  if (next) out(`more: add --cursor ${next}`);
  return 0;
}

/** `gitops-sync findings [--cluster C] [--severity S] [--rule R] [--resolved]`. */
export async function printFindings(
  api: ReadApi,
  query: Record<string, string | undefined>,
  { out, err }: CommandIo,
): Promise<number> {
  const answer = await api.get('/findings', query);
  if (answer.status !== 200) return failed(answer, err, 'findings');
  const body = answer.body as {
    items?: Json[];
    cursor?: string;
    nextCursor?: string | null;
    lastReconcile?: { startedAt?: unknown } | null;
  };
  const items = [...(body.items ?? [])].sort(bySeverityThenPlace);
  if (items.length === 0) out(noFindingsLine(body.lastReconcile, query.cursor !== undefined));
  else {
    const rows = items.map((f) => [
      cell(f.cluster),
      `${cell(f.namespace)}/${cell(f.app)}`,
      cell(f.rule),
      cell(f.severity),
      cell(f.resolvedAt === undefined ? f.lastSeen : `resolved ${cell(f.resolvedAt)}`),
      cell(f.message),
    ]);
    for (const line of formatTable(['CLUSTER', 'APP', 'RULE', 'SEVERITY', 'LAST SEEN', 'MESSAGE'], rows))
      out(line);
  }
  const next = body.cursor ?? body.nextCursor ?? undefined;
  if (next) out(`more: add --cursor ${next}`);
  return 0;
}

/** The findings come from the reconcile pass: an empty first page before any pass says so, not "none". */
export const NO_PASS_HINT =
  '  (no findings: no reconcile pass has run yet; it runs every 5 minutes by default — RECONCILE_RATE in AWS, RECONCILE_INTERVAL_SECONDS on the local stack, which also runs one at start-up)';

function noFindingsLine(lastReconcile: { startedAt?: unknown } | null | undefined, paged: boolean): string {
  // `lastReconcile` absent: an API that does not say (older version); null: no pass has ever run.
  if (lastReconcile === null && !paged) return NO_PASS_HINT;
  if (lastReconcile === undefined || lastReconcile === null) return '  (no findings)';
  return `  (no findings; last reconcile pass ${cell(lastReconcile.startedAt)})`;
}

/** The API's refusal on `err`, as `<what>: <status> <error text>`; exit code 1. */
export function failed(answer: { status: number; body: unknown }, out: Print, what: string): number {
  const body = answer.body as { message?: unknown; error?: unknown } | string;
  const reason = typeof body === 'string' ? body : (body.message ?? body.error ?? '');
  out(`${what}: ${answer.status} ${cell(reason, 300)}`.trimEnd());
  return 1;
}

/** High severity first (the page's rows; the API pages by its own order), then cluster, namespace/app, rule. */
function bySeverityThenPlace(a: Json, b: Json): number {
  const rank = (f: Json) => {
    const i = (SEVERITIES as readonly string[]).indexOf(String(f.severity));
    return i < 0 ? SEVERITIES.length : i;
  };
  const place = (f: Json) =>
    `${cell(f.cluster)}\u0000${cell(f.namespace)}/${cell(f.app)}\u0000${cell(f.rule)}`;
  return rank(a) - rank(b) || (place(a) < place(b) ? -1 : place(a) > place(b) ? 1 : 0);
}

function destinationOf(destination: AppRow['destination']): string {
  if (destination === undefined) return '';
  return typeof destination === 'string' ? cell(destination) : cell(destination.cluster ?? destination.name);
}

function countsOf(states: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const s of states) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts].map(([state, n]) => `${state} ${n}`).join(', ');
}

function summaryOf(rollout: Json): string {
  const counts = rollout.counts as Record<string, number> | undefined;
  if (counts !== undefined && typeof counts === 'object')
    return Object.entries(counts)
      .map(([state, n]) => `${state} ${n}`)
      .join(', ');
  const apps = rollout.apps as unknown[] | undefined;
  return Array.isArray(apps) ? `${apps.length} apps` : '';
}
