import { randomBytes } from 'node:crypto';
import type { FleetConfig, RepositoryConfig } from '../../lib/fleet/fleet-config.js';
import { type Clock, systemClock } from '../../lib/ports.js';
import type { TokenIdentity } from './access-control.js';
import { type ArgoCdApiServer, startArgoCdApiServer } from './argocd-api-server.js';
import {
  type ControllerOptions,
  type ResolveRevision,
  type SimulatedController,
  startArgoCdController,
} from './argocd-controller.js';
import type { SeedObject, SimulatedClusterSpec } from './default-fleet.js';
import { type KubeApiServer, startKubeApiServer } from './kube-api-server.js';
import { createOciRegistry, type OciRegistry, withOciRegistry } from './oci-registry.js';
import { primeStatus } from './prime-status.js';
import type { SimRenderDeps } from './render-app.js';

export interface SimulatedFleetOptions {
  readonly clusters: readonly SimulatedClusterSpec[];
  /** Objects per cluster name. */
  readonly objects?: Readonly<Record<string, readonly SeedObject[]>>;
  /** Resolves Git sources; OCI and Helm OCI sources are resolved against `registry`. */
  readonly resolveRevision: ResolveRevision;
  /** The container registry the fleet's Argo CD pulls OCI and Helm OCI sources from (default: empty). */
  readonly registry?: OciRegistry;
  /** Timings and clock of the simulated controllers (one per cluster running Argo CD or Flux). */
  readonly controller?: Omit<ControllerOptions, 'store' | 'resolveRevision'>;
  /** Give seeded Applications without a status a finished sync at their current commit (default true). */
  readonly primeStatus?: boolean;
  /** Repositories to put in the generated fleet config. */
  readonly repositories?: readonly RepositoryConfig[];
  /** Who requests without a token are on every cluster (for kubectl on plain http); default: refused. */
  readonly anonymous?: TokenIdentity;
  /** Extra tokens per cluster (e.g. a restricted one to test RBAC). */
  readonly tokens?: Readonly<Record<string, Readonly<Record<string, TokenIdentity>>>>;
  /** Argo CD API servers (manifests endpoint) for these clusters' Argo CD, rendering from `treeAt`. */
  readonly argocdApi?: { readonly clusters: readonly string[]; readonly treeAt: SimRenderDeps['treeAt'] };
}

export interface SimulatedCluster {
  readonly name: string;
  readonly server: string;
  /** The orchestrator's token on this cluster (full access). */
  readonly token: string;
}

export interface SimulatedFleet {
  readonly clusters: readonly SimulatedCluster[];
  /** A fleet config pointing at the simulated clusters with literal tokens. */
  readonly fleetConfig: FleetConfig;
  readonly servers: ReadonlyMap<string, KubeApiServer>;
  readonly controllers: ReadonlyMap<string, SimulatedController>;
  /** The simulated Argo CD API servers, by cluster; the fleet config names each with a literal token. */
  readonly argocdApis: ReadonlyMap<string, ArgoCdApiServer>;
  /** The registry OCI sources resolve against: push to it, then refresh (or send the registry's event). */
  readonly registry: OciRegistry;
  /** Ticks every controller once (for `tickMs: 0`). */
  tick(): Promise<void>;
  close(): Promise<void>;
}

/** Starts one Kubernetes API server (and, where Argo CD or Flux runs, one controller) per cluster. */
export async function startSimulatedFleet(options: SimulatedFleetOptions): Promise<SimulatedFleet> {
  const clock: Clock = options.controller?.clock ?? systemClock;
  const servers = new Map<string, KubeApiServer>();
  const controllers = new Map<string, SimulatedController>();
  const clusters: SimulatedCluster[] = [];
  const argocdApis = new Map<string, ArgoCdApiServer>();
  const argocdTokens = new Map<string, string>();
  const registry = options.registry ?? createOciRegistry();
  // Argo CD 3.1+ resolves an OCI source to the manifest digest and a Helm OCI source to the chart version.
  const resolveRevision = withOciRegistry(registry, options.resolveRevision);
  try {
    await Promise.all(
      options.clusters.map(async (spec) => {
        const token = `sim-${spec.name}-${randomBytes(12).toString('hex')}`;
        const server = await startKubeApiServer({
          tokens: {
            [token]: { user: 'system:serviceaccount:gitops-sync:orchestrator' },
            ...options.tokens?.[spec.name],
          },
          ...(options.anonymous === undefined ? {} : { anonymous: options.anonymous }),
        });
        servers.set(spec.name, server);
        const seeds = options.objects?.[spec.name] ?? [];
        const primed =
          options.primeStatus === false ? seeds : await primeStatus(seeds, resolveRevision, clock.now());
        for (const seed of primed) server.store.create(seed.resource, seed.object);
        if (spec.argocd !== undefined || spec.flux !== undefined) {
          controllers.set(
            spec.name,
            startArgoCdController({
              ...options.controller,
              ...(spec.argocd === undefined ? {} : { argocdNamespace: spec.argocd.namespace }),
              store: server.store,
              resolveRevision,
            }),
          );
        }
        if (spec.argocd !== undefined && options.argocdApi?.clusters.includes(spec.name) === true) {
          const argoToken = `sim-argocd-${spec.name}-${randomBytes(12).toString('hex')}`;
          const api = await startArgoCdApiServer({
            store: server.store,
            tokens: { [argoToken]: { projects: '*' } },
            namespace: spec.argocd.namespace,
            treeAt: options.argocdApi.treeAt,
            resolveRevision,
          });
          argocdApis.set(spec.name, api);
          argocdTokens.set(spec.name, argoToken);
        }
        clusters.push({ name: spec.name, server: server.url, token });
      }),
    );
  } catch (error) {
    await closeAll(servers, controllers, argocdApis);
    throw error;
  }
  const order = new Map(options.clusters.map((c, i) => [c.name, i]));
  clusters.sort((a, b) => (order.get(a.name) ?? 0) - (order.get(b.name) ?? 0));
  const specs = new Map(options.clusters.map((c) => [c.name, c]));
  const fleetConfig: FleetConfig = {
    clusters: clusters.map((c) => {
      const spec = specs.get(c.name);
      return {
        name: c.name,
        server: c.server,
        auth: { token: c.token },
        ...(spec?.argocd === undefined ? {} : { argocd: spec.argocd }),
        ...(spec?.flux === undefined ? {} : { flux: spec.flux }),
        ...argocdFields(argocdApis.get(c.name), argocdTokens.get(c.name)),
      };
    }),
    repositories: options.repositories ?? [],
    secretPolicy: 'block',
    secretStores: [],
  };
  return {
    clusters,
    fleetConfig,
    servers,
    controllers,
    argocdApis,
    registry,
    tick: async () => {
      await Promise.all([...controllers.values()].map((c) => c.tick()));
    },
    close: () => closeAll(servers, controllers, argocdApis),
  };
}

async function closeAll(
  servers: Map<string, KubeApiServer>,
  controllers: Map<string, SimulatedController>,
  argocdApis: Map<string, ArgoCdApiServer>,
): Promise<void> {
  for (const controller of controllers.values()) controller.stop();
  await Promise.all([...servers.values(), ...argocdApis.values()].map((server) => server.close()));
}

function argocdFields(
  api: ArgoCdApiServer | undefined,
  token: string | undefined,
): { argocdUrl?: string; argocdToken?: string } {
  return api === undefined || token === undefined ? {} : { argocdUrl: api.url, argocdToken: token };
}
