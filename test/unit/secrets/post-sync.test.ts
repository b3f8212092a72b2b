import { describe, expect, it } from 'vitest';
import { recordPostSync } from '../../../lib/secrets/post-sync.js';
import { SECRET_POLICY_ANNOTATION, secretPolicyFor } from '../../../lib/secrets/preflight.js';
import type { SecretCheck } from '../../../lib/secrets/secret-check.js';

function liveEs(
  name: string,
  ready: { status: string; reason: string; message: string } | undefined,
  extra: Record<string, unknown> = {},
) {
  return {
    apiVersion: 'external-secrets.io/v1',
    kind: 'ExternalSecret',
    metadata: { name, namespace: 'shop', generation: 2 },
    status: { ...(ready ? { conditions: [{ type: 'Ready', ...ready }] } : {}), ...extra },
  };
}

const synced = { status: 'True', reason: 'SecretSynced', message: 'secret synced' };
const failed = {
  status: 'False',
  reason: 'SecretSyncedError',
  message: 'could not get secret data from provider',
};
const check = (c: Partial<SecretCheck>): SecretCheck => ({
  externalSecret: 'shop/db',
  field: 'spec.data[0]',
  key: 'db',
  outcome: 'ok',
  ...c,
});

describe('recordPostSync', () => {
  it('records SecretSynced on a check the preflight found ok', () => {
    const [out] = recordPostSync({
      live: [liveEs('db', synced, { syncedResourceVersion: '2-abc' })],
      preflight: [check({})],
    });
    expect(out).toEqual(check({ syncReason: 'SecretSynced' }));
  });

  it('records SecretSyncedError with the condition message', () => {
    const [out] = recordPostSync({
      live: [liveEs('db', failed)],
      preflight: [check({ outcome: 'missing-secret', message: 'Secret does not exist' })],
    });
    expect(out).toMatchObject({
      syncReason: 'SecretSyncedError',
      message:
        'Secret does not exist; Ready=False SecretSyncedError: could not get secret data from provider',
    });
  });

  it.each([
    [
      'a secret ESO skipped under deletionPolicy Delete',
      check({ outcome: 'missing-secret', esoGap: 'skipped-missing', message: 'Secret does not exist' }),
      'the secret missing',
    ],
    [
      'a missing property',
      check({
        outcome: 'missing-property',
        property: 'password',
        message: 'key password does not exist in secret db',
      }),
      'property password missing',
    ],
    [
      'a JSON null value',
      check({ outcome: 'ok', esoGap: 'empty-value', message: 'value is JSON null: ESO writes an empty key' }),
      'a null or empty value',
    ],
  ])('flags SecretSynced as a false positive for %s', (_name, preflight, what) => {
    const [out] = recordPostSync({ live: [liveEs('db', synced)], preflight: [preflight] });
    expect(out?.syncReason).toBe('SecretSynced');
    expect(out?.message).toContain(`ESO reports SecretSynced, but the preflight found ${what}`);
  });

  it('does not take a Ready condition from an older generation as this sync', () => {
    const [out] = recordPostSync({
      live: [liveEs('db', synced, { syncedResourceVersion: '1-abc' })],
      preflight: [check({})],
    });
    expect(out?.syncReason).toBeUndefined();
    expect(out?.message).toBe('ESO has not yet synced generation 2 (last synced 1)');
  });

  it('says so when the ExternalSecret is not on the cluster or has no Ready condition', () => {
    const out = recordPostSync({
      live: [liveEs('other', undefined)],
      preflight: [check({}), check({ externalSecret: 'shop/other' })],
    });
    expect(out.map((c) => c.message)).toEqual([
      'ExternalSecret not found on the destination cluster',
      'ExternalSecret has no Ready condition yet',
    ]);
  });

  it('records every live ExternalSecret when the preflight had none (e.g. a Helm chart)', () => {
    const out = recordPostSync({
      live: [
        liveEs('a', synced),
        liveEs('b', failed),
        { kind: 'ExternalSecret', apiVersion: 'v1', metadata: { name: 'x' } },
        null,
      ],
      preflight: [{ externalSecret: '(helm)', field: 'manifests', outcome: 'not-rendered' }],
    });
    expect(out).toEqual([
      {
        externalSecret: 'shop/a',
        field: 'status',
        outcome: 'ok',
        syncReason: 'SecretSynced',
        message: 'Ready=True SecretSynced: secret synced',
      },
      {
        externalSecret: 'shop/b',
        field: 'status',
        outcome: 'error',
        syncReason: 'SecretSyncedError',
        message: 'Ready=False SecretSyncedError: could not get secret data from provider',
      },
    ]);
  });
});

describe('secretPolicyFor', () => {
  it.each([
    ['the annotation overrides the fleet policy', { [SECRET_POLICY_ANNOTATION]: 'warn' }, 'block', 'warn'],
    [
      'the annotation is read case-insensitively and trimmed',
      { [SECRET_POLICY_ANNOTATION]: ' OFF ' },
      'block',
      'off',
    ],
    [
      'an invalid annotation falls back to the fleet policy',
      { [SECRET_POLICY_ANNOTATION]: 'maybe' },
      'warn',
      'warn',
    ],
    ['no annotations fall back to the fleet policy', undefined, 'block', 'block'],
  ] as const)('%s', (_name, annotations, fallback, policy) => {
    expect(secretPolicyFor(annotations, fallback)).toBe(policy);
  });
});
