import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetTextReader } from '../../../lib/aws/fleet-text.js';
import { loadConfig } from '../../../lib/config.js';
import { FleetConfigError } from '../../../lib/errors.js';
import { createFleetSource } from '../../../lib/fleet/fleet-source.js';
import { createMemoryLogger, type LogLine } from '../../../lib/logger.js';
import { startSsmDouble } from '../../helpers/fleet-store-doubles.js';

// What serverless.yml hands every function: the resolved policy patterns of stage prod.
const DEPLOYED = {
  STAGE: 'prod',
  OWN_SECRETS_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:gitops-sync/prod/*',
  ASSUMABLE_ROLE_ARNS: 'arn:aws:iam::123456789012:role/gitops-sync-prod-access-*',
};
const fleet = (secret: string) =>
  `clusters:\n  - name: hub\n    server: https://hub.example:6443\n    auth: { tokenSecret: ${secret} }\n`;

let ssm: Awaited<ReturnType<typeof startSsmDouble>>;
const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

beforeAll(async () => {
  process.env.AWS_ACCESS_KEY_ID = 'AKIDSCOPETEST';
  process.env.AWS_SECRET_ACCESS_KEY = 'scope-test-secret';
  ssm = await startSsmDouble();
});

afterAll(async () => {
  await ssm.close();
  process.env.AWS_ACCESS_KEY_ID = saved.id;
  process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
});

function sourceFor(env: Record<string, string>) {
  const config = loadConfig({
    TABLE_NAME: 't',
    AWS_REGION: 'eu-west-1',
    SSM_ENDPOINT: ssm.endpoint,
    FLEET_SOURCE: 'ssm:/gitops-sync/prod/fleet',
    ...env,
  });
  const lines: LogLine[] = [];
  let now = Date.parse('2026-12-01T10:00:00Z');
  const source = createFleetSource(config, {
    clock: { now: () => new Date(now) },
    logger: createMemoryLogger(lines),
    mode: 'deployed',
    readRemote: createFleetTextReader({ region: config.region, ssmEndpoint: ssm.endpoint }),
  });
  return { source, lines, advance: (seconds: number) => (now += seconds * 1000) };
}

describe('cold start: the fleet must stay inside what the functions may read and assume', () => {
  it('refuses a fleet naming a secret outside the stage: one error line naming the setting, no fleet served', async () => {
    ssm.put('/gitops-sync/prod/fleet', fleet('gitops-sync/spoke'));
    const { source, lines } = sourceFor(DEPLOYED);
    const error = await source.current().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FleetConfigError);
    const problem =
      'ssm:/gitops-sync/prod/fleet:4: clusters[0].auth.tokenSecret: gitops-sync/spoke is outside what stage prod may read (arn:aws:secretsmanager:eu-west-1:123456789012:secret:gitops-sync/prod/*) — set OWN_SECRETS_ARN or rename to gitops-sync/prod/spoke';
    expect((error as FleetConfigError).problems).toEqual([problem]);
    const logged = lines.filter((l) => l.level === 'error');
    expect(logged.map((l) => [l.message, l.fields.problems])).toEqual([['fleet is invalid', [problem]]]);
  });

  it('serves the same fleet once its names are inside', async () => {
    ssm.put('/gitops-sync/prod/fleet', fleet('gitops-sync/prod/spoke'));
    const { source } = sourceFor(DEPLOYED);
    expect((await source.current()).clusters.map((c) => c.name)).toEqual(['hub']);
  });

  it('keeps the last valid fleet when an edit moves a secret outside', async () => {
    ssm.put('/gitops-sync/prod/fleet', fleet('gitops-sync/prod/spoke'));
    const { source, lines, advance } = sourceFor(DEPLOYED);
    const good = await source.current();
    ssm.put('/gitops-sync/prod/fleet', fleet('gitops-sync/dev/spoke'));
    advance(60);
    expect(await source.current()).toBe(good);
    expect(lines.find((l) => l.message === 'fleet is invalid')?.fields).toMatchObject({
      keeping: 'the last valid fleet',
    });
  });

  it('checks nothing without the deployed patterns (the local stack)', async () => {
    ssm.put('/gitops-sync/prod/fleet', fleet('anything/at-all'));
    const { source } = sourceFor({});
    expect((await source.current()).clusters).toHaveLength(1);
  });

  it('stops start-up on a malformed pattern, naming the setting', () => {
    expect(() => sourceFor({ ...DEPLOYED, ASSUMABLE_ROLE_ARNS: 'gitops-sync-prod-access-*' })).toThrow(
      'ASSUMABLE_ROLE_ARNS: must be IAM resource ARN patterns, comma-separated',
    );
  });
});
