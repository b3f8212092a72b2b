import { createHmac, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { APPLICATIONS } from '../../lib/kubernetes/resources.js';
import { createMemoryLogger } from '../../lib/logger.js';
import { CHART_ACCOUNT, CHART_REGION, CHART_REGISTRY, chartWorld } from '../simulator/chart-fleet.js';
import { createMapResolver } from '../simulator/revision-resolver.js';
import { type SimulatedFleet, startSimulatedFleet } from '../simulator/simulated-fleet.js';
import { type LocalStack, startLocalStack } from './stack.js';

// `npm run demo -- chart`: a Helm chart version pushed to an ECR registry (the simulator's), the signed
// EventBridge `ECR Image Action` event posted to `/webhooks/ecr`, and the rollout it starts: exactly the
// apps on that chart refreshed and synced at the new version, the apps on the other chart untouched.

interface Target {
  readonly url: string;
  readonly own?: LocalStack;
}

interface Rollout {
  readonly status: string;
  readonly apps: readonly { cluster: string; name: string; state: string; revision?: string }[];
}

/** What the scenario borrows from demo.ts (the `DemoKit` of demo-scenarios.ts has it). */
export interface ChartKit {
  say(line?: string): void;
  follow(target: Target, sha: string): Promise<Rollout>;
  printRollout(target: Target, sha: string, rollout: Rollout): void;
}

const SECRET = `demo-ecr-events-${randomUUID()}`;
const CHART = 'web';
const VERSION = '1.5.0';

/** The EventBridge event ECR emits for a push, signed as `/webhooks/ecr` checks it (`ECR_EVENTS_SECRET`). */
export function ecrPushEvent(repository: string, tag: string, digest: string, secret: string) {
  const body = JSON.stringify({
    version: '0',
    id: randomUUID(),
    'detail-type': 'ECR Image Action',
    source: 'aws.ecr',
    account: CHART_ACCOUNT,
    time: new Date().toISOString(),
    region: CHART_REGION,
    resources: [],
    detail: {
      result: 'SUCCESS',
      'repository-name': repository,
      'image-digest': digest,
      'action-type': 'PUSH',
      'image-tag': tag,
    },
  });
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return { headers: { 'content-type': 'application/json', 'x-signature-256': signature }, body };
}

interface Live {
  readonly chart?: string;
  readonly revision?: string;
  readonly status?: string;
  readonly health?: string;
  readonly reconciledAt?: string;
}

function liveApps(fleet: SimulatedFleet): Map<string, Live> {
  const apps = new Map<string, Live>();
  for (const [cluster, server] of fleet.servers) {
    for (const app of server.store.list(APPLICATIONS)) {
      const status = (app.status ?? {}) as {
        sync?: { revision?: string; status?: string };
        health?: { status?: string };
        reconciledAt?: string;
      };
      const chart = (app.spec as { source?: { chart?: string } } | undefined)?.source?.chart;
      apps.set(`${cluster} ${app.metadata.name}`, {
        ...(chart === undefined ? {} : { chart }),
        ...(status.sync?.revision === undefined ? {} : { revision: status.sync.revision }),
        ...(status.sync?.status === undefined ? {} : { status: status.sync.status }),
        ...(status.health?.status === undefined ? {} : { health: status.health.status }),
        ...(status.reconciledAt === undefined ? {} : { reconciledAt: status.reconciledAt }),
      });
    }
  }
  return apps;
}

export async function chart(kit: ChartKit): Promise<void> {
  kit.say('Starting a local stack with two clusters deploying Helm charts from an ECR registry...');
  const world = chartWorld();
  const fleet = await startSimulatedFleet({
    ...world,
    registry: world.registry,
    // No Git source in this world: every app follows a chart.
    resolveRevision: createMapResolver({}),
    controller: { tickMs: 100, syncMs: 800, healthMs: 600, retryMs: 500 },
  });
  const dir = await mkdtemp(join(tmpdir(), 'gitops-sync-demo-chart-'));
  let stack: LocalStack | undefined;
  try {
    const fleetFile = join(dir, 'fleet.yaml');
    const clusters = fleet.clusters.map((c) => ({
      name: c.name,
      server: c.server,
      auth: { token: c.token },
      argocd: { namespace: 'argocd' },
    }));
    await writeFile(fleetFile, stringify({ clusters, secretPolicy: 'block' }));
    stack = await startLocalStack({
      env: {
        ...process.env,
        PORT: '0',
        TRACK_INTERVAL_SECONDS: '1',
        TRACK_MAX_INTERVAL_SECONDS: '2',
        FLEET_CONFIG: fleetFile,
        ECR_EVENTS_SECRET: SECRET,
        ECR_EVENTS_ACCOUNT: CHART_ACCOUNT,
        ECR_EVENTS_REGION: CHART_REGION,
      },
      logger: createMemoryLogger(),
      print: (line) => kit.say(line),
      schedule: false,
    });
    const target: Target = { url: stack.url, own: stack };
    const before = liveApps(fleet);
    kit.say(`Argo CD on prod-eu and prod-us deploys charts from ${CHART_REGISTRY}/charts:`);
    printLive(kit, before);

    const repository = `charts/${CHART}`;
    const image = world.registry.push({
      repository: `${CHART_REGISTRY}/${repository}`,
      tag: VERSION,
      chartVersion: VERSION,
    });
    kit.say();
    kit.say(`helm push ${CHART}-${VERSION}.tgz oci://${CHART_REGISTRY}/charts  -> digest ${image.digest}`);
    const event = ecrPushEvent(repository, VERSION, image.digest, SECRET);
    kit.say(`POST ${stack.url}/webhooks/ecr  (ECR Image Action, X-Signature-256: sha256=...)`);
    const answer = await fetch(`${stack.url}/webhooks/ecr`, { method: 'POST', ...event });
    kit.say(`-> ${answer.status} ${await answer.text()}`);
    if (answer.status !== 202) throw new Error('the ECR event was not accepted');

    const hex = image.digest.slice('sha256:'.length);
    const rollout = await kit.follow(target, hex);
    const after = liveApps(fleet);
    kit.say();
    kit.say(`Argo CD after the push (status.sync.revision is the chart version of a Helm OCI source):`);
    printLive(kit, after, before);
    kit.say(`The rollout of ${image.digest.slice(0, 19)}... (the ${CHART} chart's apps, nothing else):`);
    for (const app of [...rollout.apps].sort((a, b) =>
      `${a.cluster} ${a.name}`.localeCompare(`${b.cluster} ${b.name}`),
    )) {
      const at = app.revision === hex ? `at sha256:${hex.slice(0, 12)}` : `at ${app.revision ?? '-'}`;
      kit.say(`  ${`${app.cluster} ${app.name}`.padEnd(18)} ${app.state} ${at}`);
    }
    kit.printRollout(target, hex, rollout);
  } finally {
    await stack?.close();
    await fleet.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function printLive(kit: ChartKit, now: Map<string, Live>, before?: Map<string, Live>): void {
  for (const [key, live] of [...now].sort(([a], [b]) => a.localeCompare(b))) {
    const was = before?.get(key);
    const revision =
      was === undefined || was.revision === live.revision
        ? `${live.revision ?? '-'}`
        : `${was.revision ?? '-'} -> ${live.revision ?? '-'}`;
    // reconciledAt has Argo CD's one-second resolution: a refresh within the second of the last comparison
    // keeps it, but a moved revision was compared again for certain.
    const compared =
      was !== undefined && (was.reconciledAt !== live.reconciledAt || was.revision !== live.revision);
    const moved = was === undefined ? '' : compared ? '  refreshed' : '  untouched';
    const chart = `chart ${live.chart ?? '-'}`;
    kit.say(
      `  ${key.padEnd(18)} ${chart.padEnd(10)} ${revision.padEnd(16)} ${live.status ?? '-'}/${live.health ?? '-'}${moved}`,
    );
  }
}
