import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryQueue } from '../../../infra/local/memory-queue.js';
import { githubPush } from '../../../infra/local/sample-push.js';
import { loadApiConfig } from '../../../lib/composition/runtime-api.js';
import { createRuntime } from '../../../lib/composition/runtime-local.js';
import { FleetConfigError } from '../../../lib/errors.js';
import { fanoutHandler } from '../../../lib/handlers.js';
import { createMemoryLogger, type LogLine } from '../../../lib/logger.js';
import type { PushMessage, TrackMessage } from '../../../lib/queue/messages.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

const SECRET = 'cold-start-secret';
const BROKEN = 'clusters:\n  - name: hub\n    sever: https://hub.example\n    auth: { tokenSecret: hub }\n';
const VALID = 'clusters:\n  - name: hub\n    server: https://hub.example\n    auth: { tokenSecret: hub }\n';

let table: TestTable;
let dir: string;

beforeAll(async () => {
  table = await startTestTable();
  dir = await mkdtemp(join(tmpdir(), 'fleet-cold-start-'));
});

afterAll(async () => {
  await table.close();
  await rm(dir, { recursive: true, force: true });
});

async function runtimeWith(text: string, secrets?: Record<string, string>) {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(path, text);
  const lines: LogLine[] = [];
  let now = Date.now();
  const pushQueue = new MemoryQueue<PushMessage>('fanout');
  const app = createRuntime(
    loadApiConfig({
      TABLE_NAME: table.tableName,
      DYNAMODB_ENDPOINT: table.endpoint,
      FLEET_CONFIG: path,
      GITHUB_WEBHOOK_SECRET: SECRET,
    }),
    {
      logger: createMemoryLogger(lines),
      clock: { now: () => new Date(now) },
      pushQueue,
      trackQueue: new MemoryQueue<TrackMessage>('track'),
      ...(secrets === undefined
        ? {}
        : {
            secretReader: {
              getSecretString: async (id: string) => {
                const value = secrets[id];
                if (value === undefined) throw new Error(`no secret ${id}`);
                return value;
              },
            },
          }),
    },
  );
  return { app, lines, path, pushQueue, advance: (s: number) => (now += s * 1000) };
}

function push(after: string, deliveryId: string) {
  const delivery = githubPush(
    {
      repoUrl: 'https://github.com/example/platform',
      fullName: 'example/platform',
      branch: 'main',
      before: '1'.repeat(40),
      after,
      changed: ['apps/web/deployment.yaml'],
      message: 'bump web',
    },
    SECRET,
    deliveryId,
  );
  return {
    method: 'POST',
    path: '/webhooks/github',
    headers: Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k.toLowerCase(), v])),
    query: {},
    pathParameters: { provider: 'github' },
    body: Buffer.from(delivery.body),
  };
}

describe('an invalid fleet at cold start', () => {
  it('fails a whole fanout invocation and logs every problem at error level', async () => {
    const { app, lines } = await runtimeWith(BROKEN);
    const event = {
      Records: [{ messageId: 'm1', body: '{"type":"push"}', attributes: { ApproximateReceiveCount: '1' } }],
    } as unknown as SQSEvent;
    await expect(fanoutHandler(async () => app)(event)).rejects.toBeInstanceOf(FleetConfigError);
    const invalid = lines.find((l) => l.message === 'fleet is invalid');
    expect(invalid?.level).toBe('error');
    expect(invalid?.fields.problems).toEqual([
      expect.stringMatching(/:2: clusters\[0\]\.server: is required$/),
      expect.stringMatching(/:3: clusters\[0\]\.sever: unknown field \(did you mean "server"\?\)$/),
    ]);
    expect(lines.some((l) => l.message === 'fleet unavailable: the batch goes back to the queue')).toBe(true);
    await expect(app.reconcile()).rejects.toBeInstanceOf(FleetConfigError);
  });

  it('makes the webhook answer pushes with 503 until the fleet is fixed, then accept them', async () => {
    const { app, lines, path, pushQueue, advance } = await runtimeWith(BROKEN);
    const refused = await app.webhook(push('a'.repeat(40), 'delivery-1'), 'github');
    expect(refused.statusCode).toBe(503);
    expect(pushQueue.depth).toBe(0);
    expect(lines.find((l) => l.message === 'push refused: the fleet is invalid')?.level).toBe('error');
    await writeFile(path, VALID);
    advance(61);
    // The Git host's retry of the same delivery is processed, not answered as a duplicate.
    const accepted = await app.webhook(push('a'.repeat(40), 'delivery-1'), 'github');
    expect(accepted.statusCode).toBe(202);
    expect(pushQueue.depth).toBe(1);
  });

  it('refuses plain http and literal tokens in the Lambda runtime (deployed rules)', async () => {
    const { app, lines } = await runtimeWith(
      'clusters:\n  - name: lab\n    server: http://127.0.0.1:1\n    auth: { token: t }\n',
    );
    await expect(app.fleetReady?.()).rejects.toThrow('is only for the local stack');
    expect(lines.find((l) => l.message === 'fleet is invalid')?.fields.problems).toHaveLength(2);
  });

  it('says at cold start, at error level, that the GitHub App key of check runs is not a PEM key', async () => {
    const fleet = `${VALID}repositories:\n  - url: https://github.com/example/platform\n    checkRun: true\ngithubApp:\n  appId: 7\n  privateKeySecret: github-app\n`;
    const { app, lines } = await runtimeWith(fleet, {
      hub: 'token',
      'github-app': 'ghp_pasted-the-wrong-thing',
    });
    await app.fleetReady?.();
    const said = lines.find((l) => l.message === 'check runs will fail: the GitHub App key is unusable');
    expect(said?.level).toBe('error');
    expect(said?.fields.error).toMatch(
      /^githubApp\.privateKeySecret: the key must be a PEM private key \(PKCS#1/,
    );
    expect(JSON.stringify(lines)).not.toContain('ghp_pasted');
  });
});
