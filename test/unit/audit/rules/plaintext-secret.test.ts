import { describe, expect, it } from 'vitest';
import { plaintextSecretRule } from '../../../../lib/audit/rules/plaintext-secret.js';
import { auditApp } from '../../../../lib/audit/run-audit.js';
import { input, loadFixture, manifests } from '../fixture.js';

const secret = (fields: object) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'creds' },
  ...fields,
});

function check(...docs: Record<string, unknown>[]) {
  return auditApp(input({ manifests: manifests(...docs) }), [plaintextSecretRule]).findings;
}

describe('plaintext-secret', () => {
  it('reports key names and never a value, decoded or not', () => {
    const text = JSON.stringify(auditApp(loadFixture('plaintext-secret.fires'), [plaintextSecretRule]));
    for (const value of ['b3JkZXJz', 'aHVudGVyMi1GQUtFLVZBTFVF', 'hunter2', 'db.internal']) {
      expect(text).not.toContain(value);
    }
    expect(text).toContain('DATABASE_URL');
  });

  it.each([
    ['data only', secret({ data: { token: 'c2VjcmV0' } }), ['token'], []],
    ['stringData only', secret({ stringData: { 'config.json': '{}' } }), [], ['config.json']],
  ])('fires on a Secret with %s', (_name, doc, dataKeys, stringDataKeys) => {
    expect(check(doc).map((f) => [f.subject, f.evidence.dataKeys, f.evidence.stringDataKeys])).toEqual([
      ['Secret/shop/creds', dataKeys, stringDataKeys],
    ]);
  });

  it('fires on a Secret inside a v1 List', () => {
    const list = { apiVersion: 'v1', kind: 'List', items: [secret({ data: { a: 'YQ==' } })] };
    expect(check(list).map((f) => f.subject)).toEqual(['Secret/shop/creds']);
  });

  it.each([
    ['empty data', secret({ data: {} })],
    ['no data at all', secret({ type: 'kubernetes.io/service-account-token' })],
    [
      'a SealedSecret',
      {
        apiVersion: 'bitnami.com/v1alpha1',
        kind: 'SealedSecret',
        metadata: { name: 'creds' },
        spec: { encryptedData: { a: 'AgB…' } },
      },
    ],
    [
      'a Secret kind of another API group',
      { apiVersion: 'example.com/v1', kind: 'Secret', metadata: { name: 'creds' }, data: { a: 'b' } },
    ],
  ])('stays quiet on %s', (_name, doc) => {
    expect(check(doc)).toEqual([]);
  });
});
