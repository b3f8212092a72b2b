import { at, text } from '../audit/k8s-object.js';
import { AUDIT_RULES } from '../audit/rules.js';
import { auditApp } from '../audit/run-audit.js';
import type {
  AuditInput,
  AuditNote,
  AuditOptions,
  FindingDraft,
  ManifestDoc,
  SyncHistoryEntry,
} from '../audit/types.js';
import { type Limiter, mapWithConcurrency } from '../concurrency.js';
import { errorMessage } from '../errors.js';
import { destinationCluster } from '../fleet/destination.js';
import type { ClusterConfig } from '../fleet/fleet-config.js';
import type { Clock } from '../ports.js';
import type { ManifestReader } from './app-manifests.js';
import type { SourceResolution } from './behind.js';
import type { LiveRead } from './read-clusters.js';
import type { TrackedApp, TrackedSource } from './tracked-app.js';

const HPA_RULE = 'hpa-replicas-not-ignored';

/** One Application to audit: its raw object, and the tracked view when it parsed. */
export interface AuditTarget {
  readonly cluster: string;
  readonly raw: unknown;
  readonly tracked?: TrackedApp;
  readonly history?: readonly SyncHistoryEntry[];
  readonly appProjects?: ReadonlyMap<string, unknown>;
}

export interface AuditAppsDeps {
  readonly clusters: readonly Pick<ClusterConfig, 'name' | 'server'>[];
  readonly manifests: ManifestReader;
  readonly resolve: (source: TrackedSource) => SourceResolution;
  readonly live: ReadonlyMap<string, LiveRead>;
  readonly clock: Clock;
  readonly now: Date;
  /** Epoch ms after which apps are no longer audited. */
  readonly deadline: number;
  readonly concurrency: number;
  /** Shared with the audits of other clusters' pages, so the pass audits `concurrency` apps at once in all. */
  readonly limit?: Limiter;
  readonly audit: AuditOptions;
}

export interface AuditedApps {
  readonly findings: readonly FindingDraft[];
  readonly notes: readonly AuditNote[];
  readonly audited: number;
  /** Apps left unaudited because the time budget ran out (their findings are held). */
  readonly outOfTime: number;
}

/** Audits every app with bounded concurrency; an app that fails or runs out of time holds its findings. */
export async function auditApps(targets: readonly AuditTarget[], deps: AuditAppsDeps): Promise<AuditedApps> {
  const findings: FindingDraft[] = [];
  const notes: AuditNote[] = [];
  let audited = 0;
  let outOfTime = 0;
  const auditOne = async (target: AuditTarget): Promise<void> => {
    const where = identity(target);
    if (deps.clock.now().getTime() >= deps.deadline) {
      outOfTime++;
      notes.push({ ...where, kind: 'skipped', rule: '*', message: 'not audited: the pass ran out of time' });
      return;
    }
    const { input, extraNotes } = await auditInput(target, deps);
    const result = auditApp(input, AUDIT_RULES, deps.audit);
    audited++;
    findings.push(...result.findings);
    notes.push(...result.notes, ...extraNotes);
  };
  const limit: Limiter = deps.limit ?? ((fn) => fn());
  const settled = await mapWithConcurrency(targets, deps.concurrency, (target) =>
    limit(() => auditOne(target)),
  );
  settled.forEach((result, i) => {
    if (result.status === 'fulfilled') return;
    const target = targets[i] as AuditTarget;
    const message = `not audited: ${errorMessage(result.reason)}`;
    notes.push({ ...identity(target), kind: 'skipped', rule: '*', message });
  });
  return { findings, notes, audited, outOfTime };
}

function identity(target: AuditTarget): Pick<AuditNote, 'cluster' | 'namespace' | 'app'> {
  return {
    cluster: target.cluster,
    namespace: target.tracked?.app.namespace ?? text(at(target.raw, 'metadata', 'namespace')) ?? '',
    app: target.tracked?.app.name ?? text(at(target.raw, 'metadata', 'name')) ?? '',
  };
}

async function auditInput(
  target: AuditTarget,
  deps: AuditAppsDeps,
): Promise<{ input: AuditInput; extraNotes: AuditNote[] }> {
  const base = {
    cluster: target.cluster,
    application: target.raw,
    now: deps.now,
    ...(target.history === undefined ? {} : { history: target.history }),
  };
  const tracked = target.tracked;
  if (tracked === undefined) return { input: base, extraNotes: [] };
  const extraNotes: AuditNote[] = [];
  const { manifests } = await deps.manifests(tracked);
  const project = target.appProjects?.get(tracked.app.project);
  const input: AuditInput = {
    ...base,
    ...(manifests === undefined ? {} : { manifests }),
    ...currentRevisions(tracked, deps.resolve),
    ...(project === undefined ? {} : { appProject: project }),
  };
  const destination = destinationCluster(tracked.app.destination, tracked.cluster, deps.clusters);
  const live = destination === undefined ? undefined : deps.live.get(destination);
  if (live === undefined) return { input, extraNotes };
  if (!live.ok) {
    // What the autoscalers on the destination say is unknown: earlier findings of the rule stay open.
    extraNotes.push({
      ...identity(target),
      kind: 'partial',
      rule: HPA_RULE,
      message: `live autoscalers of cluster ${destination} not read: ${live.error}`,
    });
    return { input, extraNotes };
  }
  const namespaces = new Set([tracked.app.destination.namespace ?? '', ...docNamespaces(manifests?.docs)]);
  const liveObjects = [...namespaces].flatMap((ns) => live.byNamespace.get(ns) ?? []);
  return { input: { ...input, liveObjects }, extraNotes };
}

function currentRevisions(
  tracked: TrackedApp,
  resolve: (source: TrackedSource) => SourceResolution,
): Pick<AuditInput, 'currentRevision' | 'currentRevisions'> {
  const shas = tracked.sources.map((source) => {
    const resolution = resolve(source);
    return resolution.kind === 'resolved' ? resolution.resolved.sha : undefined;
  });
  if (tracked.multiSource) {
    return shas.some((s) => s !== undefined) ? { currentRevisions: shas } : {};
  }
  const sha = shas[0];
  return sha === undefined ? {} : { currentRevision: sha };
}

function docNamespaces(docs: readonly ManifestDoc[] | undefined): string[] {
  return (docs ?? []).flatMap(({ doc }) => text(at(doc, 'metadata', 'namespace')) ?? []);
}
