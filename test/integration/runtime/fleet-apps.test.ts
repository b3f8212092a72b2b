import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryQueue } from '../../../infra/local/memory-queue.js';
import type { FleetApp } from '../../../lib/app.js';
import type { RuntimeOverrides } from '../../../lib/composition/runtime.js';
import {
  createFanoutApp,
  createReconcileApp,
  createTrackApp,
} from '../../../lib/composition/runtime-fleet-apps.js';
import { loadConfig } from '../../../lib/config.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { PushMessage, TrackMessage } from '../../../lib/queue/messages.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

const FLEET = 'clusters:\n  - name: hub\n    server: https://hub.example\n    auth: { tokenSecret: hub }\n';

let table: TestTable;
let dir: string;
let fleetPath: string;

beforeAll(async () => {
  table = await startTestTable();
  dir = await mkdtemp(join(tmpdir(), 'fleet-apps-'));
  fleetPath = join(dir, 'fleet.yaml');
  await writeFile(fleetPath, FLEET);
});

afterAll(async () => {
  await table.close();
  await rm(dir, { recursive: true, force: true });
});

function appOf(build: (config: ReturnType<typeof loadConfig>, overrides?: RuntimeOverrides) => FleetApp) {
  return build(
    loadConfig({ TABLE_NAME: table.tableName, DYNAMODB_ENDPOINT: table.endpoint, FLEET_CONFIG: fleetPath }),
    {
      logger: createMemoryLogger([]),
      pushQueue: new MemoryQueue<PushMessage>('fanout'),
      trackQueue: new MemoryQueue<TrackMessage>('track'),
    },
  );
}

const TRACK: TrackMessage = {
  type: 'track',
  sha: 'a'.repeat(40),
  cluster: 'hub',
  attempt: 1,
} as unknown as TrackMessage;

// Each fleet Lambda loads only its own part of the fleet on its first call (so its bundle holds only that).
describe('the fleet Lambdas’ builders', () => {
  it.each([
    ['fanout', createFanoutApp, ['track', 'reconcile']],
    ['track', createTrackApp, ['fanout', 'reconcile']],
    ['reconcile', createReconcileApp, ['fanout', 'track']],
  ] as const)('build %s and refuse the other two functions by name', async (_name, build, others) => {
    const app = appOf(build);
    await expect(app.fleetReady?.()).resolves.toBeUndefined();
    for (const other of others) {
      const call =
        other === 'fanout'
          ? app.fanout({ type: 'push' } as unknown as PushMessage)
          : other === 'track'
            ? app.track(TRACK)
            : app.reconcile();
      await expect(call).rejects.toThrow(`${other} is not built into this function`);
    }
  });
});
