import type { FleetConfig } from '../../lib/fleet/fleet-config.js';
import { defaultRepoFiles } from '../simulator/default-repos.js';
import type { DemoKit, DemoRollout } from './demo-scenarios.js';

const PATH = 'apps/web/base/deployment.yaml';

/**
 * `npm run demo -- bad-manifest`: a push whose web Deployment does not parse (`replicas: [2`, never closed).
 * Argo CD would fail to compare every web app; the preflight says so before the refresh: outcome
 * `unparseable` with the file and line. spoke-c's apps run under `secretPolicy: warn` (refreshed, verdict
 * `warn`); the rest of the fleet keeps the default `block` (state `blocked`, not refreshed).
 */
export async function badManifest(kit: DemoKit): Promise<void> {
  const overlay = (fleet: FleetConfig): FleetConfig => ({
    ...fleet,
    clusters: fleet.clusters.map((c) => (c.name === 'spoke-c' ? { ...c, secretPolicy: 'warn' } : c)),
  });
  const target = await kit.ownStack(overlay);
  try {
    kit.say('Fleet policy block; spoke-c: secretPolicy warn');
    const before = defaultRepoFiles().platform[PATH] ?? '';
    const broken = before.replace('replicas: 2', 'replicas: [2');
    if (broken === before) throw new Error(`${PATH} has no "replicas: 2" to break`);
    const sha = await kit.pushFiles(target, {
      branch: 'main',
      changes: { [PATH]: broken },
      message: 'web: two replicas (a typo: the list is never closed)',
    });
    const done = await kit.follow(target, sha);
    for (const app of done.apps.filter((a) => a.preflight?.verdict === 'block')) {
      kit.say(`  ${app.cluster} ${app.name}: blocked (not refreshed): ${app.message}`);
    }
    for (const app of done.apps.filter((a) => a.preflight?.verdict === 'warn')) {
      kit.say(`  ${app.cluster} ${app.name}: ${app.state}, preflight warn: ${unparseable(app)}`);
    }
    kit.printRollout(target, sha, done);
  } finally {
    await target.own?.close();
  }
}

function unparseable(app: DemoRollout['apps'][number]): string {
  const check = app.secrets?.find((c) => c.outcome === 'unparseable');
  return check?.message ?? app.preflight?.reasons.join('; ') ?? '';
}
