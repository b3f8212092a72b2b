import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packagedFleetPath } from '../../../infra/packaged-fleet.js';

describe('packagedFleetPath', () => {
  it('packages FLEET_CONFIG, else fleet.yaml, else the shipped example', async () => {
    const root = await mkdtemp(join(tmpdir(), 'packaged-fleet-'));
    try {
      expect(packagedFleetPath({}, root)).toBe('fleet.example.yaml');
      await writeFile(join(root, 'fleet.yaml'), 'clusters: []\n');
      expect(packagedFleetPath({}, root)).toBe('fleet.yaml');
      expect(packagedFleetPath({ FLEET_CONFIG: './config/prod.yaml' }, root)).toBe(
        join('config', 'prod.yaml'),
      );
      expect(packagedFleetPath({ FLEET_CONFIG: join(root, 'prod.yaml') }, root)).toBe('prod.yaml');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('refuses a fleet file outside the repository, since its path names it inside the zip', () => {
    expect(() => packagedFleetPath({ FLEET_CONFIG: '/etc/fleet.yaml' }, '/work/repo')).toThrow(
      'FLEET_CONFIG: /etc/fleet.yaml must lie inside the repository',
    );
  });
});
