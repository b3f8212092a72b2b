import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkFleetFile, parseFleetFile } from '../../../lib/fleet/fleet-file.js';

const schema = JSON.parse(readFileSync('fleet.schema.json', 'utf8')) as object;
const validateSchema = new Ajv({ allErrors: true, strict: true, strictRequired: false }).compile(schema);

const fleet = (eso: string) =>
  `clusters:\n  - name: spoke\n    server: https://k8s.example\n    auth: { token: t }\n${eso}`;

describe("a cluster's eso block (where ESO's controller runs)", () => {
  it('is read, each field defaulting to the Helm chart’s external-secrets', () => {
    const both = parseFleetFile(
      fleet('    eso: { namespace: eso, serviceAccount: eso.controller }\n'),
      'fleet.yaml',
      { mode: 'local' },
    );
    expect(both.clusters[0]?.eso).toEqual({ namespace: 'eso', serviceAccount: 'eso.controller' });
    const one = parseFleetFile(fleet('    eso: { namespace: platform }\n'), 'fleet.yaml', { mode: 'local' });
    expect(one.clusters[0]?.eso).toEqual({ namespace: 'platform', serviceAccount: 'external-secrets' });
    const none = parseFleetFile(fleet(''), 'fleet.yaml', { mode: 'local' });
    expect(none.clusters[0]?.eso).toBeUndefined();
  });

  it.each([
    ['    eso: { namespace: Eso }\n', 'clusters[0].eso.namespace: must be a DNS label'],
    [
      '    eso: { serviceAccount: "eso_controller" }\n',
      'clusters[0].eso.serviceAccount: must be a ServiceAccount name',
    ],
    ['    eso: { name: eso }\n', 'clusters[0].eso'],
  ])('rejects %j, and the schema agrees', (eso, problem) => {
    const checked = checkFleetFile(fleet(eso), 'fleet.yaml', { mode: 'local' });
    expect(checked.ok).toBe(false);
    expect(checked.ok ? '' : checked.problems.join('\n')).toContain(problem);
    expect(validateSchema(parse(fleet(eso)))).toBe(false);
  });

  it('is accepted by the schema where the validator accepts it', () => {
    const text = fleet('    eso: { namespace: eso, serviceAccount: eso.controller }\n');
    expect(checkFleetFile(text, 'fleet.yaml', { mode: 'local' }).ok).toBe(true);
    expect(validateSchema(parse(text)), JSON.stringify(validateSchema.errors)).toBe(true);
  });
});
