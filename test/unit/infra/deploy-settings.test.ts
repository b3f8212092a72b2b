import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';

const require = createRequire(import.meta.url);
const settings = require('../../../infra/deploy-settings.cjs') as {
  fleet(): Record<string, unknown>;
  alarms(): { Resources: Record<string, { Type: string }> };
};

afterEach(() => vi.unstubAllEnvs());

describe('the deploy-time fleet decision', () => {
  it.each([
    [
      'the packaged fleet.yaml by default',
      {},
      { config: 'fleet.yaml', source: '', patterns: ['fleet.yaml'] },
    ],
    [
      'the FLEET_CONFIG file when one is named',
      { FLEET_CONFIG: './fleets/prod.yaml' },
      { config: 'fleets/prod.yaml', patterns: ['fleets/prod.yaml'] },
    ],
    [
      'an SSM parameter, with no file packaged and its name for the IAM statement',
      { FLEET_SOURCE: 'ssm:/gitops-sync/prod/fleet' },
      { config: '', patterns: [], ssmParameterName: 'gitops-sync/prod/fleet', s3Object: '' },
    ],
    [
      'an S3 object, with no file packaged and its bucket/key for the IAM statement',
      { FLEET_SOURCE: 's3://fleets/prod/fleet.yaml' },
      { config: '', patterns: [], ssmParameterName: '', s3Object: 'fleets/prod/fleet.yaml' },
    ],
  ])('%s', (_name, env, expected) => {
    for (const [key, value] of Object.entries({ FLEET_CONFIG: '', FLEET_SOURCE: '', ...env }))
      vi.stubEnv(key, value);
    expect(settings.fleet()).toMatchObject(expected);
  });

  it('refuses a FLEET_SOURCE it cannot grant access to', () => {
    vi.stubEnv('FLEET_SOURCE', 'https://example.com/fleet.yaml');
    expect(() => settings.fleet()).toThrow(/FLEET_SOURCE/);
  });

  it('defines 14 alarms: 2 dead-letter queues, 2 queue ages, errors and throttles of 5 functions', () => {
    const alarms = Object.values(settings.alarms().Resources);
    expect(alarms.filter((a) => a.Type === 'AWS::CloudWatch::Alarm')).toHaveLength(14);
  });
});
