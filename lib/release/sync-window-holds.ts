import { type ParsedSyncWindows, parseSyncWindows } from '../argocd/sync-window-parse.js';
import { syncWindowHold } from '../argocd/sync-windows.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The sync windows of one Argo CD's AppProjects (listed once), asked per Application: the reason a window
 * keeps it from an automated sync now, or undefined. A project that names no windows, or an app whose
 * project is not among them, is never held here.
 */
export function syncWindowsOf(projects: readonly unknown[], now: () => Date) {
  const byName = new Map<string, ParsedSyncWindows>();
  for (const project of projects) {
    const meta = obj(obj(project).metadata);
    const name = str(meta.name);
    const parsed = parseSyncWindows(project);
    if (name !== undefined && (parsed.windows.length > 0 || parsed.problems.length > 0)) {
      byName.set(`${str(meta.namespace) ?? ''}/${name}`, parsed);
    }
  }
  return (raw: unknown): string | undefined => {
    if (byName.size === 0) return undefined;
    const app = obj(raw);
    const spec = obj(app.spec);
    const meta = obj(app.metadata);
    const project = str(spec.project) ?? 'default';
    const parsed = byName.get(`${str(meta.namespace) ?? ''}/${project}`);
    if (parsed === undefined) return undefined;
    const destination = obj(spec.destination);
    const server = str(destination.server);
    const clusterName = str(destination.name);
    const hold = syncWindowHold(
      {
        name: str(meta.name) ?? '',
        namespace: str(destination.namespace) ?? '',
        ...(server === undefined ? {} : { server }),
        ...(clusterName === undefined ? {} : { clusterName }),
      },
      parsed,
      now(),
    );
    return hold.held ? `held by AppProject ${project}: ${hold.reason}` : undefined;
  };
}
