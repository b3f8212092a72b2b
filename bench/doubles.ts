import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { ensureTable, localDynamoClient, startDynalite } from '../infra/local/dynamodb.js';
import { commitFiles, createBareRepo, makeReposRoot, removeReposRoot } from '../infra/local/git-repos.js';
import { startGitServer } from '../infra/local/git-server.js';
import { createMapResolver } from '../infra/simulator/revision-resolver.js';
import { startSimulatedFleet } from '../infra/simulator/simulated-fleet.js';
import { syntheticFleet } from '../infra/simulator/synthetic-fleet.js';

// The benchmark's doubles in a process of their own (dynalite and the simulated fleet), so the benchmark
// process measures only the orchestrator. Prints one JSON line, then obeys `head <sha>` and `tick` on stdin.
const { values } = parseArgs({
  options: {
    clusters: { type: 'string' },
    apps: { type: 'string' },
    latency: { type: 'string' },
    realistic: { type: 'boolean' },
    unfiltered: { type: 'boolean' },
    'health-ms': { type: 'string' },
  },
});
const dynamo = await startDynalite();
const client = localDynamoClient(dynamo.endpoint);
await ensureTable(client, 'bench');
client.destroy();
// A real repository behind the apps, so reconcile reads refs and manifests over smart HTTP as in production.
const reposRoot = await makeReposRoot('bench-git-');
const files: Record<string, string> = {};
for (let i = 0; i < 100; i++) {
  files[`apps/svc-${i}/deployment.yaml`] =
    `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: svc-${i} }\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers: [{ name: app, image: "ghcr.io/example/svc-${i}:1.0.${i}" }]\n`;
  files[`apps/svc-${i}/service.yaml`] =
    `apiVersion: v1\nkind: Service\nmetadata: { name: svc-${i} }\nspec: { ports: [{ port: 80 }] }\n`;
}
const initial = await createBareRepo(reposRoot, 'gitops', files);
const git = await startGitServer({ root: reposRoot });
const repoURL = git.url('gitops');
const heads: Record<string, string> = { main: initial };
const clusters = Number(values.clusters ?? 0);
const fleet =
  clusters === 0
    ? undefined
    : await startSimulatedFleet({
        ...syntheticFleet({
          clusters,
          applications: Number(values.apps ?? 0),
          repoURL,
          realistic: values.realistic === true,
          // `--unfiltered`: apps without `manifest-generate-paths` (refreshed by every push of the repository).
          pathFiltered: values.unfiltered !== true,
        }),
        resolveRevision: (url, rev) =>
          createMapResolver({ [repoURL]: { defaultBranch: 'main', branches: heads } })(url, rev),
        // `--health-ms`: how long a synced app stays Progressing before it is Healthy (default 0: at once).
        controller: { tickMs: 0, syncMs: 0, healthMs: Number(values['health-ms'] ?? 0) },
        repositories: [{ url: repoURL }],
      });
// Issue 11's "20 ms added to every API call": every request to every simulated API server waits first.
const latencyMs = Number(values.latency ?? 0);
if (latencyMs > 0) for (const server of fleet?.servers.values() ?? []) server.faults.set({ latencyMs });
process.stdout.write(
  `${JSON.stringify({ dynamodb: dynamo.endpoint, fleet: fleet?.fleetConfig, repoURL })}\n`,
);
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const [command, arg] = line.trim().split(' ');
  if (command === 'tick') await fleet?.tick();
  if (command === 'stats') {
    // `stats`: API calls since the last `reset`, by verb, and when the last PATCH was answered (epoch ms).
    const records = [...(fleet?.servers.values() ?? [])].flatMap((server) => server.requests.all());
    const count = (verb: string) => records.filter((r) => r.verb === verb).length;
    const patches = records.filter((r) => r.verb === 'patch').map((r) => (r.at ?? 0) + latencyMs);
    const lastPatchAt = patches.reduce((a, b) => Math.max(a, b), 0);
    process.stdout.write(`${JSON.stringify({ list: count('list'), patch: count('patch'), lastPatchAt })}\n`);
    continue;
  }
  if (command === 'patches') {
    // `patches`: per cluster, the PATCHes since the last `reset` and when its last one was answered (epoch ms).
    const byCluster: Record<string, { patch: number; lastPatchAt: number }> = {};
    for (const [name, server] of fleet?.servers ?? []) {
      const at = server.requests
        .all()
        .filter((r) => r.verb === 'patch')
        .map((r) => (r.at ?? 0) + latencyMs);
      if (at.length > 0) byCluster[name] = { patch: at.length, lastPatchAt: Math.max(...at) };
    }
    process.stdout.write(`${JSON.stringify(byCluster)}\n`);
    continue;
  }
  if (command === 'reset') for (const server of fleet?.servers.values() ?? []) server.requests.reset();
  if (command === 'commit') {
    // `commit <service>`: a real commit changing one service's manifest; answers `<before> <after> <path>`.
    const path = `apps/svc-${arg ?? '0'}/deployment.yaml`;
    const text = `${files[path] ?? ''}# ${Date.now()}\n`;
    files[path] = text;
    const result = await commitFiles(reposRoot, 'gitops', {
      branch: 'main',
      changes: { [path]: text },
      message: `bench ${arg}`,
    });
    heads.main = result.after;
    process.stdout.write(`${result.before} ${result.after} ${path}\n`);
    continue;
  }
  process.stdout.write('ok\n');
}
await fleet?.close();
await git.close();
await removeReposRoot(reposRoot);
await dynamo.close();
// The doubles' own CPU, for comparing their cost before and after a change to the simulator.
const used = process.cpuUsage();
process.stderr.write(`doubles: ${Math.round((used.user + used.system) / 1000)} ms CPU\n`);
process.exit(0);
