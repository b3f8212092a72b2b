import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { ensureTable, localDynamoClient, startDynalite } from '../infra/local/dynamodb.js';
import { createMapResolver } from '../infra/simulator/revision-resolver.js';
import { startSimulatedFleet } from '../infra/simulator/simulated-fleet.js';
import { syntheticFleet } from '../infra/simulator/synthetic-fleet.js';

// The benchmark's doubles in a process of their own (dynalite and the simulated fleet), so the benchmark
// process measures only the orchestrator. Prints one JSON line, then obeys `head <sha>` and `tick` on stdin.
export const BENCH_REPO = 'https://github.com/org/gitops';

const { values } = parseArgs({ options: { clusters: { type: 'string' }, apps: { type: 'string' } } });
const dynamo = await startDynalite();
const client = localDynamoClient(dynamo.endpoint);
await ensureTable(client, 'bench');
client.destroy();
const heads: Record<string, string> = { main: `${'0'.repeat(39)}1` };
const clusters = Number(values.clusters ?? 0);
const fleet =
  clusters === 0
    ? undefined
    : await startSimulatedFleet({
        ...syntheticFleet({ clusters, applications: Number(values.apps ?? 0), repoURL: BENCH_REPO }),
        resolveRevision: (url, rev) =>
          createMapResolver({ [BENCH_REPO]: { defaultBranch: 'main', branches: heads } })(url, rev),
        controller: { tickMs: 0, syncMs: 0, healthMs: 0 },
        repositories: [],
      });
process.stdout.write(`${JSON.stringify({ dynamodb: dynamo.endpoint, fleet: fleet?.fleetConfig })}\n`);
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const [command, arg] = line.trim().split(' ');
  if (command === 'head' && arg !== undefined) heads.main = arg;
  if (command === 'tick') await fleet?.tick();
  process.stdout.write('ok\n');
}
await fleet?.close();
await dynamo.close();
process.exit(0);
