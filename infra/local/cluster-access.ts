import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { FleetConfig } from '../../lib/fleet/fleet-config.js';

/**
 * A kubeconfig with one context per simulated cluster (its server URL and orchestrator token), so kubectl
 * and client libraries can look at and change what the stack sees: `kubectl --kubeconfig ... get app -A`.
 */
export function simulatedKubeconfig(fleet: FleetConfig): string {
  const clusters = fleet.clusters.map((c) => ({
    name: c.name,
    server: c.server,
    token: 'token' in c.auth ? c.auth.token : '',
    namespace: c.argocd?.namespace ?? c.flux?.namespace ?? 'default',
  }));
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    // client-node (not kubectl) refuses a plain-http server unless TLS verification is marked skipped.
    clusters: clusters.map((c) => ({
      name: `sim-${c.name}`,
      cluster: {
        server: c.server,
        ...(c.server?.startsWith('http:') ? { 'insecure-skip-tls-verify': true } : {}),
      },
    })),
    users: clusters.map((c) => ({ name: `sim-${c.name}`, user: { token: c.token } })),
    contexts: clusters.map((c) => ({
      name: c.name,
      context: { cluster: `sim-${c.name}`, user: `sim-${c.name}`, namespace: c.namespace },
    })),
    'current-context': clusters[0]?.name ?? '',
  });
}

/** A fleet file (local rules: plain http, literal tokens) for another stack to drive these clusters. */
export function simulatedFleetFile(fleet: FleetConfig, stackUrl: string): string {
  const body = {
    clusters: fleet.clusters.map((c) => ({
      name: c.name,
      server: c.server,
      auth: c.auth,
      ...(c.argocd === undefined ? {} : { argocd: c.argocd }),
      ...(c.flux === undefined ? {} : { flux: c.flux }),
      ...(c.argocdUrl === undefined ? {} : { argocdUrl: c.argocdUrl }),
      ...(c.argocdToken === undefined ? {} : { argocdToken: c.argocdToken }),
    })),
    repositories: fleet.repositories.map((r) => ({ url: r.url })),
  };
  return `# The simulated clusters of the local stack on ${stackUrl}; valid while it runs.\n# local stack only: npx gitops-sync validate --local <this file>\n${stringify(body)}`;
}

/** Writes both files (owner-only: they hold the clusters' tokens) into `dir`; returns their paths. */
export function writeClusterAccess(
  dir: string,
  fleet: FleetConfig,
  stackUrl: string,
): { kubeconfig: string; fleetFile: string } {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const kubeconfig = join(dir, 'kubeconfig');
  const fleetFile = join(dir, 'fleet.yaml');
  writeFileSync(kubeconfig, simulatedKubeconfig(fleet), { mode: 0o600 });
  writeFileSync(fleetFile, simulatedFleetFile(fleet, stackUrl), { mode: 0o600 });
  return { kubeconfig, fleetFile };
}
