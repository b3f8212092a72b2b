import http from 'node:http';
import { realisticBulk } from '../infra/simulator/realistic-status.js';
import { createClientNodeClusterApi } from '../lib/kubernetes/client-node-cluster-api.js';
import { APPLICATIONS } from '../lib/kubernetes/resources.js';
import { loopbackServer } from './loopback-server.js';
import { type BenchOptions, type Metric, median, percentiles } from './report.js';
import { storeBatchCpuMs, storeRequestCpuMs } from './store-request-cpu.js';

const S = 'floor';

/**
 * What one refreshed app costs at the least on this machine, without any orchestrator code: the refresh
 * PATCH through Node's own HTTP client, and the JSON.parse of the app's share of its cluster's LIST. Fan-out
 * has to do both for every app it refreshes (the PATCH is the refresh; the LIST is how it knows the app), so
 * the sum is the floor under fan-out's "CPU per refreshed app" row: a target below it cannot be met here.
 */
export async function benchFloor(options: BenchOptions): Promise<Metric[]> {
  const { patch, parse } = await floorSamples(options.quick);
  const client = await patchCpu(options.quick, clientPatch);
  const metrics = [
    ...percentiles(
      S,
      'refresh PATCH through node:http, client CPU per request (keep-alive, 10 at a time, ~19 KB answer, server in another process)',
      patch,
      'ms',
    ),
    ...percentiles(
      S,
      "the same refresh through the orchestrator's cluster client (lib/kubernetes mergePatchQuiet: client-node's request context, the no-redirect transport, the timeout), client CPU per request",
      client,
      'ms',
    ),
    ...percentiles(
      S,
      'JSON.parse of one realistic Application in a 500-item LIST page (~19 KB each), CPU',
      parse,
      'ms',
    ),
  ];
  metrics.push({
    scenario: S,
    metric: 'PATCH + parse per refreshed app (medians summed): the least fan-out CPU per app can be here',
    value: median(patch) + median(parse),
    unit: 'ms',
  });
  return metrics;
}

/**
 * The floor in ms per refreshed app, measured now: the fan-out scenario measures it in its own run, so its
 * target is twice what this machine does at the least, not a figure from another machine or another hour.
 */
export async function floorMs(quick: boolean): Promise<number> {
  const { patch, parse } = await floorSamples(quick);
  return median(patch) + median(parse);
}

/**
 * The CPU of JSON.parse per realistic Application listed (a 500-item LIST page, as the simulator serves it):
 * what reading a cluster's Applications costs at the least, per app, before anything looks at them.
 */
export function listParsePerAppMs(quick: boolean): number {
  return median(parseSamples(quick));
}

/** What the parts fan-out must use cost per use on this machine now, in ms of client CPU (medians, bests). */
export interface PartsCost {
  /** The refresh PATCH through the orchestrator's cluster client (client-node, the no-redirect transport). */
  readonly clientPatch: number;
  /** JSON.parse of one realistic Application of a LIST page. */
  readonly parse: number;
  /** One UpdateItem through the store's client (the AWS SDK). */
  readonly request: number;
  /** One BatchWriteItem of 25 app items through it. */
  readonly batch: number;
}

export async function partsCost(quick: boolean): Promise<PartsCost> {
  return {
    clientPatch: median(await patchCpu(quick, clientPatch)),
    parse: median(parseSamples(quick)),
    request: await storeRequestCpuMs(quick ? 300 : 2000),
    batch: await storeBatchCpuMs(quick ? 40 : 200),
  };
}

/**
 * The least CPU per refreshed app with the parts fan-out must use (the cluster client, the store client) and
 * the requests its targets allow: each app's PATCH and LIST share, and a work item's 4 requests and one
 * batch per 25 apps spread over its `appsPerCluster` apps. No matching, decision, preflight or record building.
 */
export function partsFloorMs(cost: PartsCost, appsPerCluster: number): number {
  const perWorkItem = 4 * cost.request + Math.ceil(appsPerCluster / 25) * cost.batch;
  return cost.clientPatch + cost.parse + perWorkItem / Math.max(1, appsPerCluster);
}

/** A CPU target of twice `floor` (ms), to two decimals: what fan-out's CPU rows are held to. */
export const twiceFloor = (floor: number) => Math.round(2 * floor * 100) / 100;

async function floorSamples(quick: boolean): Promise<{ patch: number[]; parse: number[] }> {
  const patch = await patchCpu(quick, barePatch);
  return { patch, parse: parseSamples(quick) };
}

const rounds = (quick: boolean) => (quick ? 3 : 7);

const parseSamples = (quick: boolean) => parseCpu(rounds(quick), quick ? 3 : 8);

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

type Once = () => Promise<void>;

/** Argo CD's refresh annotation, the merge patch fan-out sends. */
const REFRESH = { metadata: { annotations: { 'argocd.argoproj.io/refresh': 'normal' } } };

/** The bare PATCH through node:http: the least a refresh can cost the client. */
const barePatch = (port: number, agent: http.Agent): Once => {
  const body = JSON.stringify(REFRESH);
  return () =>
    new Promise<void>((resolve, reject) => {
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          agent,
          method: 'PATCH',
          path: '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/svc-0',
          headers: {
            authorization: 'Bearer bench',
            'content-type': 'application/merge-patch+json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (response) => {
          response.resume();
          response.once('end', () => resolve());
        },
      );
      request.once('error', reject);
      request.end(body);
    });
};

/** The same refresh through the orchestrator's cluster client (lib/kubernetes), as fan-out sends it. */
const clientPatch = (port: number): Once => {
  const api = createClientNodeClusterApi({
    cluster: 'bench',
    timeoutMs: 30_000,
    access: {
      access: async () => ({ server: `http://127.0.0.1:${port}`, token: 'bench' }),
      invalidate: () => {},
    },
  });
  return () => api.mergePatchQuiet(APPLICATIONS, 'argocd', 'svc-0', REFRESH);
};

async function patchCpu(quick: boolean, make: (port: number, agent: http.Agent) => Once): Promise<number[]> {
  const perRound = quick ? 500 : 2000;
  // The API server answers a merge patch with the whole object: a realistic one here.
  const server = await loopbackServer(JSON.stringify(application(0)), 'application/json');
  try {
    const { port } = server;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
    const once = make(port, agent);
    const round = async (n: number) => {
      let sent = 0;
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (sent++ < n) await once();
        }),
      );
    };
    await round(perRound); // connections, JIT
    const samples: number[] = [];
    for (let r = 0; r < rounds(quick); r++) {
      const cpu = process.cpuUsage();
      await round(perRound);
      samples.push(cpuMs(cpu) / perRound);
    }
    agent.destroy();
    return samples;
  } finally {
    server.stop();
  }
}

function parseCpu(rounds: number, perRound: number): number[] {
  const page = JSON.stringify({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'ApplicationList',
    metadata: { resourceVersion: '1' },
    items: Array.from({ length: 500 }, (_, i) => application(i)),
  });
  for (let i = 0; i < 5; i++) JSON.parse(page);
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const cpu = process.cpuUsage();
    for (let i = 0; i < perRound; i++) JSON.parse(page);
    samples.push(cpuMs(cpu) / perRound / 500);
  }
  return samples;
}

/** One Application as the simulator serves it with realistic status (`realisticBulk`). */
function application(i: number): object {
  const service = `svc-${i}`;
  const repoURL = 'http://127.0.0.1/gitops';
  const bulk = realisticBulk(service, repoURL);
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: {
      name: service,
      namespace: 'argocd',
      uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      resourceVersion: String(1000 + i),
      annotations: { 'argocd.argoproj.io/manifest-generate-paths': '.' },
      managedFields: bulk.managedFields,
    },
    spec: {
      project: 'default',
      source: { repoURL, path: `apps/${service}`, targetRevision: 'main' },
      destination: { name: 'in-cluster', namespace: service },
      syncPolicy: { automated: { prune: true } },
    },
    status: bulk.status,
  };
}
