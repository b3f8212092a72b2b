import { pinnedSources } from '../argocd/pin.js';
import { pinRevertedByOwner } from '../argocd/pin-owner.js';
import { pinOwnersIn } from '../argocd/pin-owners.js';
import type { AuditNote, FindingDraft } from '../audit/types.js';
import { destinationCluster } from '../fleet/destination.js';
import type { ClusterConfig } from '../fleet/fleet-config.js';
import { identify } from '../matching/raw-object.js';
import { type AuditAppsDeps, type AuditTarget, auditApps } from './audit-apps.js';
import { createInterner, type Interner } from './intern.js';
import { type ClusterPass, startClusterPass } from './memory-update.js';
import type { ObservationLimits } from './observations.js';
import type { ClusterMemory } from './ports.js';
import type { ArgoClusterRead, LiveObjectsReader } from './read-clusters.js';
import { type RegistrySource, registrySourcesOf } from './registry-sources.js';
import type { InvalidApplication } from './report.js';
import type { RepositoriesReader } from './resolve-repos.js';
import { type TrackedSource, trackApplication } from './tracked-app.js';

/** What a pass keeps of one read cluster once its pages are audited: no Application objects. */
export interface AuditedCluster {
  readonly cluster: string;
  readonly applications: number;
  readonly invalid: readonly InvalidApplication[];
  /** Apps with a Git source whose repository is not in the fleet file. */
  readonly unlistedRepositoryApps: number;
  readonly findings: readonly FindingDraft[];
  readonly notes: readonly AuditNote[];
  readonly outOfTime: number;
  readonly appProjectsError?: string;
  /** Every source behind its current commit, with since when. */
  readonly behind: ClusterPass['behind'];
  /** Every OCI and Helm OCI source on an ECR repository (the ECR catch-up's input). */
  readonly registrySources: readonly RegistrySource[];
  /** The cluster's memory after the pass, to write when it changed. */
  readonly memory: Pick<ClusterPass, 'apps' | 'changed'>;
}

export interface AuditClusterDeps {
  readonly clusters: readonly Pick<ClusterConfig, 'name' | 'server'>[];
  readonly repositories: RepositoriesReader;
  readonly live: LiveObjectsReader;
  /** The audit's dependencies but the ones read as pages arrive (resolution and live objects). */
  readonly audit: Omit<AuditAppsDeps, 'resolve' | 'live'>;
  readonly now: number;
  readonly limits: ObservationLimits;
  /**
   * Shares the strings and evidence of what the cluster keeps until it settles (default: one per cluster;
   * a pass-wide one kept every app's distinct message, which names the app, for the whole fleet).
   */
  readonly shared?: Interner;
  /** Repositories under `control: pin`: their apps are checked for an owner that would revert the pin. */
  readonly pinnedRepos?: readonly string[];
}

/**
 * `pin-reverted-by-owner` for the page's apps with a source of a pinned repository whose ApplicationSet (or
 * app-of-apps parent on the same page) would write `targetRevision` back: fan-out leaves those unpinned.
 */
function pinsRevertedOnPage(
  cluster: string,
  items: readonly unknown[],
  applicationSets: readonly unknown[],
  pinnedRepos: readonly string[] | undefined,
): FindingDraft[] {
  if (pinnedRepos === undefined || pinnedRepos.length === 0) return [];
  const owners = pinOwnersIn([
    ...applicationSets.map((raw) => ({ kind: 'ApplicationSet', raw })),
    ...items.map((raw) => ({ kind: 'Application', raw })),
  ]);
  return items.flatMap((raw) => {
    const sourceIndexes = pinnedSources(raw, pinnedRepos).map((s) => s.index);
    if (sourceIndexes.length === 0) return [];
    return pinRevertedByOwner(raw, owners(raw), { cluster, sourceIndexes }) ?? [];
  });
}

/**
 * One Argo CD cluster's pages, each in turn: track its apps, list the repositories and read the live
 * objects they are the first to need, update their memory and audit them; then the page is dropped. Only
 * the per-app memory, the behind list, the invalid apps and the findings and notes outlive it. An object
 * seen again (the listing restarted after its continue token expired) is not audited twice.
 */
export async function auditCluster(
  read: ArgoClusterRead,
  previous: ClusterMemory | undefined,
  deps: AuditClusterDeps,
): Promise<AuditedCluster> {
  const shared = deps.shared ?? createInterner();
  const { cluster, appProjects } = read;
  const resolve = (source: TrackedSource) => deps.repositories.resolve(source.source);
  const pass = startClusterPass(previous, resolve, deps.now, deps.limits, shared);
  const seen = new Set<string>();
  const invalid: InvalidApplication[] = [];
  const findings: FindingDraft[] = [];
  const notes: AuditNote[] = [];
  const registrySources: RegistrySource[] = [];
  let applications = 0;
  let unlisted = 0;
  let outOfTime = 0;
  for await (const page of read.pages) {
    const targets: AuditTarget[] = [];
    for (const raw of page.items) {
      const { namespace = '', name } = identify(raw);
      if (name !== undefined) {
        const key = `${namespace}/${name}`;
        if (seen.has(key)) continue;
        seen.add(key);
      }
      applications++;
      const tracked = trackApplication(cluster, raw);
      if (!tracked.ok)
        invalid.push({ cluster, namespace: tracked.namespace, name: tracked.name, reason: tracked.reason });
      targets.push({
        cluster,
        raw,
        ...(tracked.ok ? { tracked: tracked.value } : {}),
        ...(appProjects === undefined ? {} : { appProjects }),
      });
    }
    const tracked = targets.flatMap((t) => (t.tracked === undefined ? [] : [t.tracked]));
    for (const t of tracked) registrySources.push(...registrySourcesOf(t));
    await Promise.all([
      deps.repositories.load(tracked.flatMap((t) => t.sources.map((s) => s.source))),
      deps.live.load(
        new Set(
          tracked.flatMap((t) => destinationCluster(t.app.destination, t.cluster, deps.clusters) ?? []),
        ),
      ),
    ]);
    const withHistory = targets.map((t) =>
      t.tracked === undefined ? t : { ...t, history: pass.add(t.tracked) },
    );
    unlisted += tracked.filter((t) => t.sources.some((s) => resolve(s).kind === 'unlisted')).length;
    for (const finding of pinsRevertedOnPage(
      cluster,
      page.items,
      read.applicationSets ?? [],
      deps.pinnedRepos,
    )) {
      findings.push(shared.finding(finding));
    }
    const audited = await auditApps(withHistory, { ...deps.audit, resolve, live: deps.live.read });
    for (const finding of audited.findings) findings.push(shared.finding(finding));
    for (const note of audited.notes) notes.push(shared.note(note));
    outOfTime += audited.outOfTime;
  }
  const { apps, changed, behind } = pass.finish();
  return {
    cluster,
    applications,
    invalid,
    unlistedRepositoryApps: unlisted,
    findings,
    notes,
    outOfTime,
    ...(read.appProjectsError === undefined ? {} : { appProjectsError: read.appProjectsError }),
    behind,
    registrySources,
    memory: { apps, changed },
  };
}
